import { parseConfig, UserError, type Rng } from '@rred/core';
import { GeneratorConfigSchema, VARIABLE_NAMES, type GeneratorConfig } from './config';
import type { Operand, Problem, Step } from './problem';

/** Validates generator knobs (defaults filled in) including the cross-field checks. */
export function generatorConfig(input: unknown = {}, source = 'generator config'): GeneratorConfig {
  const cfg = parseConfig(GeneratorConfigSchema, input, source);
  if (cfg.minSteps > cfg.maxSteps) {
    throw new UserError(`invalid config (${source}): minSteps (${cfg.minSteps}) must be <= maxSteps (${cfg.maxSteps})`);
  }
  return cfg;
}

/**
 * Draws one problem. Variables are defined in order a, b, c, ...; an operand of a later step refers
 * to an earlier variable with probability `referenceRate`, preferring variables nobody uses yet.
 * So that the queried last variable depends on every step, a variable that would otherwise be left
 * unused is forced into later operands once the remaining steps could no longer absorb it.
 */
export function generateProblem(rng: Rng, config: GeneratorConfig): Problem {
  const n = rng.int(config.minSteps, config.maxSteps);
  const steps: Step[] = [];
  let unused: number[] = []; // indices of defined variables no later step reads yet
  for (let i = 0; i < n; i++) {
    const name = VARIABLE_NAMES[i];
    const wantsRef = [0, 1].map(() => i > 0 && rng.next() < config.referenceRate);
    // After this step `unused` gains i (unless it is the last). Steps i+1..n-2 can each remove at
    // most one net (read 2, add itself), the last step can read 2: so after step i at most
    // (n-2-i)+2 may remain unused. The last step must read all that remain.
    const capacityAfter = i === n - 1 ? 0 : n - i;
    const mustConsume = Math.max(0, unused.length + (i === n - 1 ? 0 : 1) - capacityAfter);
    if (mustConsume > 2) throw new Error(`generator invariant broken at step ${i} of ${n}`);
    const operands: Operand[] = [];
    const taken: number[] = [];
    const pool = unused.slice();
    for (let slot = 0; slot < 2; slot++) {
      const forced = slot < mustConsume;
      if (forced || (wantsRef[slot] && i > 0)) {
        let target: number;
        if (pool.length > 0 && (forced || rng.next() < 0.7)) {
          target = pool.splice(rng.int(0, pool.length - 1), 1)[0];
        } else {
          // Never the same variable twice in one step (`a-a` is always 0, which hides the chain).
          const free = Array.from({ length: i }, (_, j) => j).filter((j) => !taken.includes(j));
          if (free.length === 0) {
            operands.push({ kind: 'num', value: rng.int(0, config.operandMax) });
            continue;
          }
          target = rng.pick(free);
          const at = pool.indexOf(target);
          if (at >= 0) pool.splice(at, 1);
        }
        taken.push(target);
        operands.push({ kind: 'var', name: VARIABLE_NAMES[target] });
      } else {
        operands.push({ kind: 'num', value: rng.int(0, config.operandMax) });
      }
    }
    // Random side for the forced operand so forced references are not always on the left.
    if (rng.next() < 0.5) operands.reverse();
    steps.push({ name, left: operands[0], op: rng.pick(config.operators), right: operands[1] });
    unused = unused.filter((u) => !taken.includes(u));
    if (i < n - 1) unused.push(i);
  }
  if (unused.length > 0) throw new Error('generator left a variable unused');
  return { steps, queries: [VARIABLE_NAMES[n - 1]], modulus: config.modulus };
}
