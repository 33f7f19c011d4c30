/**
 * Gradient attribution (Sec. 4, App. 10.2): ‖∂ Σ_t log p(o_t) / ∂ e_t‖₁ for every input embedding
 * e_t, where the sum runs over the completion tokens, then aggregated over each segment's positions.
 * One forward + backward pass per trace.
 */
import { parseConfig } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { z } from 'zod';
import { CostMeter } from './cost';
import { exitPoints } from './exit-points';
import type { EstimatorInputs, EstimatorResult } from './types';

export const gradientConfigSchema = z
  .object({
    aggregate: z
      .enum(['mean', 'sum'])
      .default('mean')
      .describe("How a segment's per-position norms become its attribution: 'mean' (App. 10.2: averaged per segment) or 'sum'."),
  })
  .strict();

type GradientConfig = z.infer<typeof gradientConfigSchema>;
export type GradientConfigInput = z.input<typeof gradientConfigSchema>;

interface GradientExtra {
  /** Gradient L1 norm at each completion position (index = completion position). */
  completionNorms: number[];
  /** Aggregate over the answer segment (`</think>`, answer, `<eos>`), null when there is none. */
  answerSegment: number | null;
  config: GradientConfig;
}

export async function gradientAttribution(
  model: LanguageModel,
  trace: Trace,
  segments: Segment[],
  inputs: EstimatorInputs,
  config: GradientConfigInput = {},
): Promise<EstimatorResult<GradientExtra>> {
  const cfg = parseConfig(gradientConfigSchema, config ?? {}, 'gradient config');
  const meter = new CostMeter();
  const { sequence } = exitPoints(trace, segments, inputs.tokens);
  const P = trace.prompt.length;
  const { norms, cost } = await model.embeddingGradientNorms(sequence, P);
  meter.add(cost);
  if (norms.length !== sequence.length) {
    throw new Error(`gradient: model returned ${norms.length} norms for a sequence of ${sequence.length} tokens`);
  }
  const completionNorms = norms.slice(P);
  const aggregate = (from: number, to: number): number => {
    let s = 0;
    for (let t = from; t < to; t++) s += completionNorms[t];
    return cfg.aggregate === 'mean' ? s / (to - from) : s;
  };
  const O = trace.completion.length;
  return {
    method: 'gradient',
    credits: segments.map((seg) => aggregate(seg.start, seg.end)),
    extra: { completionNorms, answerSegment: trace.thinkEnd < O ? aggregate(trace.thinkEnd, O) : null, config: cfg },
    cost: meter.finish(),
  };
}
