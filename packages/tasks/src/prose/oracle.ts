import type { LineSubgoal } from '../alignment';
import { remainingAlignment } from '../alignment';
import type { Problem } from '../problem';
import { firstUncorrectedError, type ReadLine } from '../step-oracle';
import { parseProseLine } from './parse';

/**
 * The step oracle and the oracle alignment (`alignment: 'task'`) of the free-form bed: the task's own
 * definitions (step-oracle.ts, alignment.ts) over lines read by the bed's templates. A restatement
 * assigns nothing and reaches no subgoal; a line in no template is malformed.
 */
const readProseLine: ReadLine = (text) => {
  const line = parseProseLine(text);
  if (line === null) return null;
  if (line.kind === 'restate') return 'none';
  return {
    correction: line.kind === 'step' && line.correction !== null,
    variable: line.variable,
    left: line.left,
    op: line.op,
    right: line.right,
    value: line.value,
  };
};

/** The variable a prose step, correction or reference line computes (null for a restatement or anything else). */
export const proseSubgoal: LineSubgoal = (text) => {
  const line = parseProseLine(text);
  return line === null || line.kind === 'restate' ? null : line.variable;
};

/** firstUncorrectedError on a free-form trace's thinking. */
export function proseFirstUncorrectedError(problem: Problem, thinking: string): ReturnType<typeof firstUncorrectedError> {
  return firstUncorrectedError(problem, thinking, readProseLine);
}

/** remainingAlignment for the free-form bed: the reference's `Step k.` lines whose variable the thinking has not reached. */
export function proseRemainingAlignment(codec: Parameters<typeof remainingAlignment>[0]): ReturnType<typeof remainingAlignment> {
  return remainingAlignment(codec, proseSubgoal);
}
