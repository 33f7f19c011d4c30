/**
 * Truncated Monte Carlo values (Sec. 4, App. 10.1). From every exit point s_k, k = 0..K, sample n
 * continuations (rest of the thinking, `</think>`, answer) of at most M tokens with the policy;
 * V_MC(s_k) = mean ζ, where a continuation cut by M scores 0 and still counts (Fig. 4).
 * Credit r_k = V_MC(s_k) − V_MC(s_{k−1}). Every continuation's length, truncation and correctness is
 * kept, so the effect of any smaller limit M′ is computable without resampling (see truncation.ts).
 */
import { mean, parseConfig, ProgressBar, type Rng, sampleVariance, UserError } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { z } from 'zod';
import { CostMeter } from './cost';
import { exitPoints } from './exit-points';
import type { EstimatorInputs, EstimatorResult } from './types';

export const mcConfigSchema = z
  .object({
    samplesPerExitPoint: z
      .number()
      .int()
      .min(1)
      .default(20)
      .describe('n: continuations sampled from each exit point (App. 10.1 used 20; SD of V_MC < 0.1 after ~5, Fig. 8). Integer ≥ 1.'),
    maxNewTokens: z
      .number()
      .int()
      .min(1)
      .default(256)
      .describe('M: token limit of each continuation; a continuation cut by M scores ζ = 0 and is counted (Fig. 4). Integer ≥ 1.'),
    horizon: z
      .enum(['continuation', 'completion'])
      .default('continuation')
      .describe(
        "What M limits: 'continuation' = each continuation may add up to M tokens (Fig. 4); 'completion' = M bounds the whole completion, so from s_k " +
          'at most M − |u_1..u_k| tokens are sampled (App. 10.1: fixed total horizon).',
      ),
    temperature: z.number().positive().default(1).describe('Policy sampling temperature (> 0) of the continuations.'),
    topP: z.number().gt(0).max(1).default(1).describe('Nucleus mass in (0, 1]; 1 disables top-p.'),
    batchSize: z
      .number()
      .int()
      .min(1)
      .default(64)
      .describe(
        'Continuations per `sample` call: all exit points × n prompts are sent in chunks of this size, in (exit point, sample) order; the ' +
          'samples of one exit point in a chunk share its prefill (an exit point split over two chunks is prefilled once in each). ' +
          'The chunking fixes the rng stream, so changing it changes the draws. Integer ≥ 1.',
      ),
    progress: z.boolean().default(false).describe('Show a progress bar with ETA on stderr.'),
  })
  .strict();

export type McConfig = z.infer<typeof mcConfigSchema>;
export type McConfigInput = z.input<typeof mcConfigSchema>;

/** One sampled continuation. */
export interface ContinuationRecord {
  /** Exit point k it was sampled from (0..K). */
  exitPoint: number;
  /** Completion tokens before the exit point (|u_1..u_k|). */
  offset: number;
  /** Token limit this continuation was sampled under. */
  limit: number;
  /** Tokens generated (including `<eos>` when reached). */
  length: number;
  /** True when it hit the limit M without `<eos>`. */
  truncated: boolean;
  /** ζ used in V_MC: the reward of a finished continuation, 0 for a truncated one. */
  utility: number;
  /** utility > 0. */
  correct: boolean;
}

export interface McExtra {
  /** Standard error of V_MC(s_k): sample SD / √n (NaN when n = 1: undefined with one sample). */
  standardErrors: number[];
  records: ContinuationRecord[];
  config: McConfig;
}

export async function truncatedMc(
  model: LanguageModel,
  trace: Trace,
  segments: Segment[],
  inputs: EstimatorInputs,
  config: McConfigInput,
  rng: Rng,
): Promise<EstimatorResult<McExtra>> {
  const cfg = parseConfig(mcConfigSchema, config ?? {}, 'mc config');
  const reward = inputs.reward;
  if (!reward) throw new UserError('mc: inputs.reward (the verifier of sampled continuations) is required');
  if (!rng) throw new UserError('mc: an Rng is required (every sample draw goes through it)');
  const meter = new CostMeter();
  const ep = exitPoints(trace, segments, inputs.tokens);
  const P = trace.prompt.length;
  const limitAt = (k: number) => (cfg.horizon === 'continuation' ? cfg.maxNewTokens : cfg.maxNewTokens - (ep.exitAt[k] - P));
  ep.exitAt.forEach((at, k) => {
    if (at + limitAt(k) > model.maxLength) {
      throw new UserError(
        `mc: maxNewTokens ${cfg.maxNewTokens} + exit point at ${at} tokens exceeds the model's maxLength ${model.maxLength}`,
      );
    }
  });
  const n = cfg.samplesPerExitPoint;
  const records: ContinuationRecord[] = [];
  const bar = cfg.progress ? new ProgressBar(`mc '${trace.problemId}'`, n * ep.exitAt.length) : null;
  // All exit points × n continuations go out in chunks of batchSize, ordered (exit point, sample), which
  // fixes the rng stream of each continuation. With horizon 'completion' the limits differ per exit
  // point: a chunk is sampled up to its largest limit and each continuation is then cut at its own
  // limit — the first `limit` tokens have exactly the distribution of a run stopped at `limit`, and one
  // batched call is far cheaper than one call per exit point. The discarded tokens still count in the cost.
  // The n identical prompts of an exit point share one prefill inside `sample` (MC at its best).
  const owners: number[] = [];
  ep.exitAt.forEach((_, k) => {
    if (limitAt(k) <= 0) {
      // the thinking before this exit point already used the whole horizon: nothing can finish
      for (let j = 0; j < n; j++)
        records.push({ exitPoint: k, offset: ep.exitAt[k] - P, limit: limitAt(k), length: 0, truncated: true, utility: 0, correct: false });
      bar?.tick(n);
    } else {
      for (let j = 0; j < n; j++) owners.push(k);
    }
  });
  for (let start = 0, chunk = 0; start < owners.length; start += cfg.batchSize, chunk++) {
    const ks = owners.slice(start, start + cfg.batchSize);
    const prompts = ks.map((k) => ep.sequence.slice(0, ep.exitAt[k]));
    const { results, cost } = await model.sample(
      prompts,
      { temperature: cfg.temperature, topP: cfg.topP, maxNewTokens: Math.max(...ks.map(limitAt)), stopToken: inputs.tokens.eos },
      rng.fork(`mc-chunk-${chunk}`),
    );
    meter.add(cost);
    results.forEach((r, i) => {
      const k = ks[i];
      const limit = limitAt(k);
      const stopped = !r.truncated && r.tokens.length <= limit;
      const utility = stopped ? checkedReward(reward(r.tokens, true), trace.problemId) : 0;
      const length = stopped ? r.tokens.length : limit;
      records.push({ exitPoint: k, offset: ep.exitAt[k] - P, limit, length, truncated: !stopped, utility, correct: utility > 0 });
    });
    bar?.tick(ks.length);
  }
  records.sort((a, b) => a.exitPoint - b.exitPoint);
  const { values, standardErrors } = exitPointMeans(records, ep.exitAt.length);
  return {
    method: 'mc',
    credits: segments.map((_, i) => values[i + 1] - values[i]),
    values,
    extra: { standardErrors, records, config: cfg },
    cost: meter.finish(),
  };
}

/** Mean utility and its standard error per exit point. */
export function exitPointMeans(
  records: readonly ContinuationRecord[],
  exitPointCount: number,
): { values: number[]; standardErrors: number[] } {
  const groups = Array.from({ length: exitPointCount }, () => [] as number[]);
  for (const r of records) groups[r.exitPoint].push(r.utility);
  const values = groups.map(mean);
  // SE = s / √n; NaN below 2 samples (the stats module's convention)
  const standardErrors = groups.map((g) => Math.sqrt(sampleVariance(g) / g.length));
  return { values, standardErrors };
}

function checkedReward(z: number, problemId: string): number {
  if (!(typeof z === 'number' && z >= 0 && z <= 1)) {
    throw new Error(`mc: reward function returned ${z} for a continuation of trace '${problemId}'; expected ζ in [0, 1]`);
  }
  return z;
}
