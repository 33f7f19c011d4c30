import { reachedSubgoals, remainingAlignment } from './alignment';
import { problemFromRecord } from './build';
import type { TaskRecord } from './dataset';
import { proseFirstUncorrectedError, proseRemainingAlignment, proseSubgoal } from './prose/oracle';
import { parseProseLine } from './prose/parse';
import { CORRECTION_MARKER, LINE_SEPARATOR } from './solution';
import { firstUncorrectedError } from './step-oracle';

/**
 * The step oracle and the oracle alignment for a record of either rendering: the task's notation, or the
 * free-form bed's prose (`meta.format: 'prose'`), whose lines are read by the bed's own templates.
 */
export function recordFirstError(record: TaskRecord, thinking: string): ReturnType<typeof firstUncorrectedError> {
  const problem = problemFromRecord(record);
  return record.meta.format === 'prose' ? proseFirstUncorrectedError(problem, thinking) : firstUncorrectedError(problem, thinking);
}

/** remainingAlignment for the rendering of `record` (every record of one split has the same). */
export function recordAlignment(
  record: TaskRecord,
  codec: Parameters<typeof remainingAlignment>[0],
): ReturnType<typeof remainingAlignment> {
  return record.meta.format === 'prose' ? proseRemainingAlignment(codec) : remainingAlignment(codec);
}

/** The subgoals (variables) with a complete line in `thinking`, read in the rendering of `record`. */
export function recordReachedSubgoals(record: TaskRecord, thinking: string): Set<string> {
  return record.meta.format === 'prose' ? reachedSubgoals(thinking, proseSubgoal) : reachedSubgoals(thinking);
}

/**
 * The lines of `thinking` that attempt a step, read in the rendering of `record`: every non-empty line but
 * corrections (`wait …`, `Wait, …`) and the prose bed's restatements. A line in no template counts (a
 * garbled or misnamed step is still a step written).
 */
export function recordStepLines(record: TaskRecord, thinking: string): number {
  const prose = record.meta.format === 'prose';
  return thinking.split(LINE_SEPARATOR).filter((raw) => {
    const line = raw.trim();
    if (line === '' || line.toLowerCase().startsWith(CORRECTION_MARKER)) return false;
    if (!prose) return true;
    const parsed = parseProseLine(line);
    return !(parsed?.kind === 'restate' || (parsed?.kind === 'step' && parsed.correction !== null));
  }).length;
}
