import type { Rng } from '@rred/core';
import { dependencies, type Problem } from './problem';

/**
 * Valid solution orders are the topological orders of the step dependency DAG (every step must be
 * computed, each after the steps it reads). Their number is the reference diversity that drives the
 * bias of the value estimator (paper Eq. 10). Counting uses a DP over subsets of computed steps,
 * fine for the ≤ 12 steps the task allows.
 */
function requiredMasks(problem: Problem): number[] {
  return dependencies(problem).map((deps) => deps.reduce((m, d) => m | (1 << d), 0));
}

/** completions[mask] = number of ways to finish when the steps in `mask` are done. */
function completionCounts(problem: Problem): Float64Array {
  const n = problem.steps.length;
  const need = requiredMasks(problem);
  const full = (1 << n) - 1;
  const counts = new Float64Array(1 << n);
  counts[full] = 1;
  for (let mask = full - 1; mask >= 0; mask--) {
    let total = 0;
    for (let i = 0; i < n; i++) {
      if (!(mask & (1 << i)) && (need[i] & mask) === need[i]) total += counts[mask | (1 << i)];
    }
    counts[mask] = total;
  }
  return counts;
}

/** Number of valid solution orders (≥ 1: definition order is always valid). */
export function countSolutionOrders(problem: Problem): number {
  return completionCounts(problem)[0];
}

/** The canonical order: definition order a, b, c, ... */
export function canonicalOrder(problem: Problem): number[] {
  return problem.steps.map((_, i) => i);
}

/** Up to `limit` valid orders (step indices), canonical first, then in lexicographic order. */
export function solutionOrders(problem: Problem, limit = Infinity): number[][] {
  const n = problem.steps.length;
  const need = requiredMasks(problem);
  const out: number[][] = [];
  const order: number[] = [];
  const visit = (mask: number): void => {
    if (out.length >= limit) return;
    if (order.length === n) {
      out.push(order.slice());
      return;
    }
    for (let i = 0; i < n; i++) {
      if (!(mask & (1 << i)) && (need[i] & mask) === need[i]) {
        order.push(i);
        visit(mask | (1 << i));
        order.pop();
      }
    }
  };
  visit(0);
  return out;
}

/** A valid order drawn uniformly among all valid orders (each next step weighted by its completions). */
export function sampleSolutionOrder(problem: Problem, rng: Rng): number[] {
  const n = problem.steps.length;
  const need = requiredMasks(problem);
  const counts = completionCounts(problem);
  const order: number[] = [];
  let mask = 0;
  while (order.length < n) {
    const options: number[] = [];
    const weights: number[] = [];
    for (let i = 0; i < n; i++) {
      if (!(mask & (1 << i)) && (need[i] & mask) === need[i]) {
        options.push(i);
        weights.push(counts[mask | (1 << i)]);
      }
    }
    const pick = options[rng.categorical(weights)];
    order.push(pick);
    mask |= 1 << pick;
  }
  return order;
}

/** True when `order` is a permutation of the steps in which each step follows what it reads. */
export function isValidOrder(problem: Problem, order: readonly number[]): boolean {
  const n = problem.steps.length;
  if (order.length !== n) return false;
  const need = requiredMasks(problem);
  let mask = 0;
  for (const i of order) {
    if (!Number.isInteger(i) || i < 0 || i >= n || mask & (1 << i) || (need[i] & mask) !== need[i]) return false;
    mask |= 1 << i;
  }
  return true;
}
