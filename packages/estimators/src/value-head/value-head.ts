/**
 * OPTIONAL value-head baseline (flagged; not part of the paper's method). A logistic head on frozen
 * policy hidden states, v(s) = sigmoid(w·standardize(h(s)) + b), fitted to value targets — the trace's
 * outcome ζ at every exit point (Monte Carlo return, as a PPO critic would learn) or truncated-MC values.
 * Credits are r_k = v(s_k) − v(s_{k−1}), like MC. It needs training data and can be badly calibrated:
 * that trade-off against RREDCoT (no training) and MC (no bias, much sampling) is what it is here to show.
 */
import { mean, parseConfig, standardDeviation, UserError } from '@rred/core';
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { z } from 'zod';
import { CostMeter } from '../cost';
import { exitPoints } from '../exit-points';
import type { EstimatorResult, SpecialTokens } from '../types';
import type { HiddenStateModel } from './hidden-states';

const valueHeadConfigSchema = z
  .object({
    steps: z.number().int().min(1).default(500).describe('Full-batch gradient steps on the cross-entropy. Integer ≥ 1.'),
    learningRate: z.number().positive().default(0.5).describe('Gradient step size on standardized features (> 0).'),
    l2: z.number().min(0).default(1e-3).describe('L2 penalty on the weights (≥ 0), keeps the head from overfitting few traces.'),
  })
  .strict();
type ValueHeadConfigInput = z.input<typeof valueHeadConfigSchema>;

interface ValueHead {
  weights: number[];
  bias: number;
  /** Feature standardization fitted on the training features. */
  mean: number[];
  scale: number[];
}

/**
 * Fits the head by full-batch gradient descent on mean binary cross-entropy with soft targets in [0, 1]
 * (+ l2/2 ‖w‖²). Deterministic: no sampling.
 */
export function fitValueHead(features: number[][], targets: number[], config: ValueHeadConfigInput = {}): ValueHead {
  const cfg = parseConfig(valueHeadConfigSchema, config ?? {}, 'value head config');
  const N = features.length;
  if (N === 0 || targets.length !== N)
    throw new UserError(`fitValueHead: ${N} feature rows for ${targets.length} targets; need the same, non-zero count`);
  const bad = targets.findIndex((t) => !(t >= 0 && t <= 1));
  if (bad >= 0) throw new UserError(`fitValueHead: target ${bad} is ${targets[bad]}; expected a value in [0, 1]`);
  const C = features[0].length;
  const columns = Array.from({ length: C }, (_, c) => features.map((f) => f[c]));
  const centre = columns.map(mean);
  const scale = columns.map((col) => standardDeviation(col) || 1); // constant feature: leave it unscaled
  const X = features.map((f) => f.map((x, c) => (x - centre[c]) / scale[c]));
  const w = new Array<number>(C).fill(0);
  let b = 0;
  for (let step = 0; step < cfg.steps; step++) {
    const gw = w.map((wc) => cfg.l2 * wc);
    let gb = 0;
    for (let i = 0; i < N; i++) {
      const err = (sigmoid(dot(w, X[i]) + b) - targets[i]) / N; // ∂BCE/∂logit
      for (let c = 0; c < C; c++) gw[c] += err * X[i][c];
      gb += err;
    }
    for (let c = 0; c < C; c++) w[c] -= cfg.learningRate * gw[c];
    b -= cfg.learningRate * gb;
  }
  return { weights: w, bias: b, mean: centre, scale };
}

export function predictValue(head: ValueHead, feature: readonly number[]): number {
  let z = head.bias;
  for (let c = 0; c < head.weights.length; c++) z += head.weights[c] * ((feature[c] - head.mean[c]) / head.scale[c]);
  return sigmoid(z);
}

/**
 * Features of every exit point s_k (k = 0..K): the hidden state at the last token of the prefix, i.e.
 * where the policy would predict the next token. One forward over the trace up to s_K.
 */
export async function exitPointFeatures(
  model: HiddenStateModel,
  trace: Trace,
  segments: Segment[],
  tokens: SpecialTokens,
): Promise<{ features: number[][]; cost: EstimatorResult['cost'] }> {
  const meter = new CostMeter();
  const ep = exitPoints(trace, segments, tokens);
  const last = ep.exitAt[ep.exitAt.length - 1];
  const { states, cost } = await model.hiddenStates(
    ep.sequence.slice(0, last),
    ep.exitAt.map((at) => at - 1),
  );
  meter.add(cost);
  return { features: states, cost: meter.finish() };
}

/** Value-head credits of one trace: v(s_k) from the head, r_k = v(s_k) − v(s_{k−1}). */
export async function valueHeadEstimate(
  model: HiddenStateModel,
  head: ValueHead,
  trace: Trace,
  segments: Segment[],
  tokens: SpecialTokens,
): Promise<EstimatorResult<{ head: 'logistic' }>> {
  if (head.weights.length !== model.dim)
    throw new UserError(`valueHeadEstimate: head has ${head.weights.length} weights, model features have ${model.dim}`);
  const { features, cost } = await exitPointFeatures(model, trace, segments, tokens);
  const values = features.map((f) => predictValue(head, f));
  return { method: 'valueHead', credits: segments.map((_, i) => values[i + 1] - values[i]), values, extra: { head: 'logistic' }, cost };
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
