import { reachedSubgoals, remainingAlignment } from './alignment';
import { problemFromRecord } from './build';
import type { TaskRecord } from './dataset';
import { proseFirstUncorrectedError, proseRemainingAlignment, proseSubgoal } from './prose/oracle';
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
