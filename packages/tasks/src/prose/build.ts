import { MAX_LISTED_ALTERNATIVES, SPLITS, buildDatasets, problemFromRecord } from '../build';
import type { TaskRecord } from '../dataset';
import { solutionOrders } from '../orders';
import type { Problem } from '../problem';
import { proseProblemText, proseReference } from './render';

/**
 * The free-form bed's datasets: the task's own splits (same seed, same problems, same answers) with the
 * problem written as sentences and the reference solutions in the `Step k.` style. Its held-out files live
 * in packages/tasks/data/free-form/, so a split of the bed is named `free-form/eval-medium`.
 */
export const FREE_FORM_DIR = 'free-form';

/** The bed's shipped splits by name (the experiments' `split`): `free-form/validation`, `free-form/eval-medium`, ... */
export const FREE_FORM_SPLITS = SPLITS.filter((s) => s !== 'train').map((s) => `${FREE_FORM_DIR}/${s}` as const);

/** The record's problem in prose and its references in the bed's reference style; `meta.notation` keeps the task's form. */
export function proseRecord(record: TaskRecord): TaskRecord {
  const problem = problemFromRecord(record);
  const orders = solutionOrders(problem, MAX_LISTED_ALTERNATIVES + 1);
  return {
    id: `${FREE_FORM_DIR}-${record.id}`,
    problem: proseProblemText(problem),
    solution: proseReference(problem, orders[0]),
    answer: record.answer,
    split: `${FREE_FORM_DIR}/${record.split}`,
    meta: {
      ...record.meta,
      format: 'prose',
      notation: record.problem,
      alternativeSolutions: orders.slice(1).map((o) => proseReference(problem, o)),
    },
  };
}

/** Up to `limit` reference solutions of a prose problem (canonical order first), in the bed's reference style. */
export function proseReferences(problem: Problem, limit: number): string[] {
  return solutionOrders(problem, Math.max(1, limit)).map((o) => proseReference(problem, o));
}

/** buildDatasets(seed, sizes) in prose: the same problems per split, in the same order. */
export function buildProseDatasets(seed: number, sizes: Parameters<typeof buildDatasets>[1] = {}): ReturnType<typeof buildDatasets> {
  const data = buildDatasets(seed, sizes);
  return Object.fromEntries(Object.entries(data).map(([split, records]) => [split, records.map(proseRecord)])) as ReturnType<
    typeof buildDatasets
  >;
}
