import { UserError, type Rng } from '@rred/core';
import type { SampleOptions } from './types';

interface Draw {
  token: number;
  /** log p(token) under the temperature-1 distribution. */
  logprob: number;
  /** Entropy (nats) of the temperature-1 distribution. */
  entropy: number;
}

/** Checks sampling options once per call; messages name the option. */
export function validateSampleOptions(options: SampleOptions, vocabSize: number): void {
  const { temperature, topP, maxNewTokens, stopToken } = options;
  if (!(Number.isFinite(temperature) && temperature >= 0))
    throw new UserError(`sample: temperature must be a finite number >= 0 (0 = greedy), got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new UserError(`sample: topP must be in (0, 1], got ${topP}`);
  if (!(Number.isInteger(maxNewTokens) && maxNewTokens >= 0))
    throw new UserError(`sample: maxNewTokens must be an integer >= 0, got ${maxNewTokens}`);
  if (!(Number.isInteger(stopToken) && stopToken >= 0 && stopToken < vocabSize))
    throw new UserError(`sample: stopToken must be a token id in 0..${vocabSize - 1}, got ${stopToken}`);
}

/**
 * Draws the next token from one row of logits [V] (read back from the model) with the Rng:
 * temperature scaling, then nucleus (top-p) truncation, then one categorical draw. The reported
 * log-probability and entropy are always those of the unscaled (temperature-1) distribution, which
 * is what the estimators and the policy-gradient losses need. Temperature 0 is greedy and draws no
 * random number. Done in float64 on the JS side: V is ~50, so this is cheap.
 */
export function drawToken(logits: ArrayLike<number>, options: SampleOptions, rng: Rng): Draw {
  const V = logits.length;
  let max = -Infinity;
  for (let i = 0; i < V; i++) {
    if (Number.isNaN(logits[i])) throw new Error(`drawToken: logit ${i} is NaN (model weights diverged?)`);
    if (logits[i] > max) max = logits[i];
  }
  let sum = 0;
  for (let i = 0; i < V; i++) sum += Math.exp(logits[i] - max);
  const logZ = max + Math.log(sum);
  let entropy = 0;
  for (let i = 0; i < V; i++) {
    const lp = logits[i] - logZ;
    if (lp > -Infinity) entropy -= Math.exp(lp) * lp;
  }

  let token: number;
  if (options.temperature === 0) {
    token = 0;
    for (let i = 1; i < V; i++) if (logits[i] > logits[token]) token = i;
  } else {
    const weights = new Float64Array(V);
    for (let i = 0; i < V; i++) weights[i] = Math.exp((logits[i] - max) / options.temperature);
    if (options.topP < 1) truncateToNucleus(weights, options.topP);
    token = rng.categorical(weights);
  }
  return { token, logprob: logits[token] - logZ, entropy };
}

/** Zeroes every weight outside the smallest set of most likely tokens whose mass reaches topP. */
function truncateToNucleus(weights: Float64Array, topP: number): void {
  let total = 0;
  for (const w of weights) total += w;
  // Stable order: by weight descending, ties by id, so the kept set is deterministic.
  const order = Array.from(weights.keys()).sort((a, b) => weights[b] - weights[a] || a - b);
  let cumulative = 0;
  let kept = 0;
  while (kept < order.length && cumulative < topP * total) cumulative += weights[order[kept++]];
  for (let i = Math.max(kept, 1); i < order.length; i++) weights[order[i]] = 0;
}
