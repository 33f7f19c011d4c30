/**
 * Rewrites of a record's reference solution that keep its meaning and change its surface form: the
 * gold benchmark's stress arm for how much of a credit estimator's signal depends on the reference
 * looking like the model's own output. Every rewrite is still a correct solution of the same problem
 * (same values, same answer), in a form the checkpoints never saw in training:
 * - `reorder`: the independent lines in another valid order (a topological order of the step DAG other
 *   than the canonical one; the last one in lexicographic order, so the rewrite is deterministic);
 * - `swap`: the operands of every commutative line swapped (`a=4+3=7` → `a=3+4=7`; `+` and `*` only);
 * - `reorderSwap`: both.
 * A problem with a single valid order cannot be reordered: `reorder` then returns the canonical text
 * (`changed: false`), and the benchmark reports how often that happens.
 */
import { problemFromRecord } from './build';
import type { TaskRecord } from './dataset';
import { solutionOrders } from './orders';
import { LINE_SEPARATOR, stepLine, traceSteps } from './solution';
import { REFERENCE_TEMPLATE, fill } from './prose/templates';

export const REFERENCE_REWRITES = ['reorder', 'swap', 'reorderSwap'] as const;
export type ReferenceRewrite = (typeof REFERENCE_REWRITES)[number];

const COMMUTATIVE = new Set(['+', '*']);

/** At most this many valid orders are enumerated to pick the reordered one (the task has ≤ 12 steps). */
const ORDER_LIMIT = 4096;

interface RewrittenSolution {
  /** The rewritten solution text, lines joined by the task's newline. */
  solution: string;
  /** False when the rewrite left the text as it was (one valid order; no commutative line). */
  changed: boolean;
}

/** The record's canonical reference solution rewritten as `rewrite` says (the answer is unchanged). */
export function rewriteReference(record: TaskRecord, rewrite: ReferenceRewrite): RewrittenSolution {
  const problem = problemFromRecord(record);
  const orders = solutionOrders(problem, ORDER_LIMIT);
  const order = rewrite === 'swap' ? orders[0] : orders[orders.length - 1];
  const swap = rewrite !== 'reorder';
  // a free-form record's reference keeps its `Step k.` style (the step number follows the new order)
  const line = (name: string, left: number, op: string, right: number, result: number, k: number): string =>
    record.meta.format === 'prose'
      ? fill(REFERENCE_TEMPLATE, { k, x: name, l: left, op, r: right, v: result })
      : stepLine(name, left, op, right, result);
  const solution = traceSteps(problem, order)
    .map((s, i) =>
      swap && COMMUTATIVE.has(s.op)
        ? line(s.name, s.right, s.op, s.left, s.result, i + 1)
        : line(s.name, s.left, s.op, s.right, s.result, i + 1),
    )
    .join(LINE_SEPARATOR);
  return { solution, changed: solution !== record.solution };
}
