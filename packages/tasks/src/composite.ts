import { UserError, type Rng } from '@rred/core';
import type { Problem } from './problem';

/**
 * The composite form of a problem (paper Sec. 3.2.0.1, "composite answers"): the same steps, but the
 * question asks for `parts` variables — `parts − 1` earlier ones drawn uniformly without replacement,
 * then the last one — in definition order, e.g. `?c,f` with answer `6,9`. Each part is a subgoal that
 * shows in the answer itself. Draws only from `rng`.
 */
export function compositeForm(problem: Problem, parts: number, rng: Rng): Problem {
  const n = problem.steps.length;
  if (!Number.isInteger(parts) || parts < 2 || parts > n) {
    throw new UserError(`compositeForm: parts must be an integer in 2..${n} (the problem's steps), got ${parts}`);
  }
  const pool = Array.from({ length: n - 1 }, (_, i) => i);
  const picked: number[] = [];
  for (let k = 0; k < parts - 1; k++) picked.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]);
  picked.sort((a, b) => a - b);
  return { ...problem, queries: [...picked, n - 1].map((i) => problem.steps[i].name) };
}

/** True when the problem asks for more than one value. */
export function isComposite(problem: Problem): boolean {
  return problem.queries.length > 1;
}
