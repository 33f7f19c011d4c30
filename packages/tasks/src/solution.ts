import { applyOp, type Operand, type Problem } from './problem';
import { canonicalOrder } from './orders';

/** The word that introduces a correction of the previous line in a solution. */
export const CORRECTION_MARKER = 'wait';

/** Separates solution lines. */
export const LINE_SEPARATOR = '\n';

/**
 * Every character that can occur in problem, solution and answer texts of the default task
 * (modulus ≤ 10): digits, operators, punctuation, the newline, the space after the marker word,
 * variable names a..l and the letters of the marker word. The tokenizer is built from it.
 */
export const TASK_ALPHABET = '0123456789+-*=;?\n abcdefghijkltw';

/**
 * TASK_ALPHABET plus the `,` of composite queries and answers (`?c,f` → `6,9`), appended so the ids of
 * the single-answer alphabet stay the same. The 'assumptions met' checkpoint is built from it.
 */
export const COMPOSITE_TASK_ALPHABET = `${TASK_ALPHABET},`;

/** One rendered solution line: `b=7*2=4` (variables replaced by the values used). */
export function stepLine(name: string, left: number, op: string, right: number, result: number): string {
  return `${name}=${left}${op}${right}=${result}`;
}

/**
 * Solution text for a valid order: one line per step, variables substituted by their values, e.g.
 * `a=3+4=7\nb=7*2=4\nc=5+4=9`.
 */
export function solutionText(problem: Problem, order: readonly number[] = canonicalOrder(problem)): string {
  return solutionLines(problem, order).join(LINE_SEPARATOR);
}

/** The lines of `solutionText`, plus the substituted operand values, for building variants. */
export function solutionLines(problem: Problem, order: readonly number[]): string[] {
  return traceSteps(problem, order).map((s) => stepLine(s.name, s.left, s.op, s.right, s.result));
}

export interface ComputedStep {
  index: number;
  name: string;
  op: string;
  left: number;
  right: number;
  result: number;
}

/**
 * Computes the steps in `order`. `override` replaces a step's result (used to propagate an
 * uncorrected error into later steps).
 */
export function traceSteps(problem: Problem, order: readonly number[], override?: Map<number, number>): ComputedStep[] {
  const values = new Map<string, number>();
  const read = (o: Operand): number => {
    if (o.kind === 'num') return o.value;
    const v = values.get(o.name);
    if (v === undefined) throw new Error(`order computes a step before variable ${o.name}`);
    return v;
  };
  return order.map((index) => {
    const s = problem.steps[index];
    const left = read(s.left);
    const right = read(s.right);
    const result = override?.get(index) ?? applyOp(s.op, left, right, problem.modulus);
    values.set(s.name, result);
    return { index, name: s.name, op: s.op, left, right, result };
  });
}
