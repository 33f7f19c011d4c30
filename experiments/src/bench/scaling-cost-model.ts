/**
 * The FLOP cost model of the scaling section: what each measure should cost at a point (T, K), from the
 * model's shape alone, so that a fitted wall-time exponent can be compared with the exponent the model
 * predicts (a measure grows linearly in x only where the dense work dominates the attention work).
 *
 * One forward token that attends to t keys (t = its position + 1) costs, in multiply-adds × 2:
 *   f(t) = L · (2 · (4·C² + 2·C·F) + 4 · t · C) + 2 · C · V
 * (per layer: the q, k, v, o projections 4·C², the MLP 2·C·F, then q·kᵀ and attention·v over t keys; the
 * head C·V once). A training token costs 3 · f (forward + backward ≈ 2 forwards).
 */
import { powerLawExponent } from '@rred/core';

interface CostModelShape {
  nLayers: number;
  dModel: number;
  dFF: number;
  vocabSize: number;
}

/** What the measures of one point do, in tokens and the context each token attends to. */
export interface PointWork {
  /** Exit positions at_k (prefix lengths), k = 0..K. */
  exitAt: number[];
  /** Trace length T (prompt + thinking). */
  T: number;
  /** |suffix| scored at every exit point. */
  suffix: number;
  /** MC: continuations per exit point, and the tokens each one forwards after its prefill (its draws − 1; the stop is never drawn). */
  mcSamples: number;
  mcDecode: (k: number) => number;
  /** Training step rows of T tokens. */
  trainRows: number;
  /** RREDCoT measures: copies of the trace scored in one call (each forwards its own suffixes; scratch also its own T). */
  scoredTraces: number;
  /** MC: copies of the trace sampled in one call (each decodes its own continuations; identical prefixes are prefilled once). */
  mcTraces: number;
}

/** FLOPs (×2 multiply-adds) of one forward token attending to t keys. */
export function tokenFlops(s: CostModelShape, t: number): number {
  const C = s.dModel;
  return s.nLayers * (2 * (4 * C * C + 2 * C * s.dFF) + 4 * t * C) + 2 * C * s.vocabSize;
}

/** Σ_{t = from+1}^{to} cost(t): the tokens at positions from..to−1 of one sequence, each attending to its own prefix. */
function span(cost: (t: number) => number, from: number, to: number): number {
  let sum = 0;
  for (let t = from + 1; t <= to; t++) sum += cost(t);
  return sum;
}

/** Per measure: FLOPs (`pointFlops`) or forwarded tokens (`pointTokens`) at one point. */
export interface PointFlops {
  rredcotCached: number;
  rredcotScratch: number;
  mc: number;
  train: number;
}

/**
 * The cost model at one point:
 *  - RREDCoT from the cache: the K+1 suffixes, each token attending to its exit prefix and its own earlier tokens;
 *  - from scratch: the T-token trace once (pass 1), then the same suffixes;
 *  - MC at its best: each distinct exit prefix prefilled once, then n continuations per exit point and trace copy decoded;
 *  - training step: trainRows × T tokens forward + backward.
 */
export function pointFlops(s: CostModelShape, w: PointWork): PointFlops {
  return pointCost((t) => tokenFlops(s, t), w, 3);
}

/** The same sums in forwarded tokens (training tokens counted once): what the bench checks its measured token counts against. */
export function pointTokens(w: PointWork): PointFlops {
  return pointCost(() => 1, w, 1);
}

function pointCost(cost: (t: number) => number, w: PointWork, trainFactor: number): PointFlops {
  const suffixes = w.exitAt.reduce((n, at) => n + span(cost, at, at + w.suffix), 0);
  const prefills = w.exitAt.reduce((n, at) => n + span(cost, 0, at), 0);
  const decodes = w.exitAt.reduce((n, at, k) => n + w.mcSamples * span(cost, at, at + w.mcDecode(k)), 0);
  return {
    rredcotCached: w.scoredTraces * suffixes,
    rredcotScratch: w.scoredTraces * (span(cost, 0, w.T) + suffixes),
    mc: prefills + w.mcTraces * decodes,
    train: trainFactor * w.trainRows * span(cost, 0, w.T),
  };
}

/** The exponent the cost model predicts: b of flops ≈ a·x^b over the same points and the same x as the wall-time fit. */
export function predictedExponent<P>(points: readonly P[], x: (p: P) => number, flops: (p: P) => number): number {
  return powerLawExponent(points.map(x), points.map(flops));
}
