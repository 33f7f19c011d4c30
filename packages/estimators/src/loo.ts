/**
 * Leave-one-out attribution (Sec. 4, App. 10.2): the pointwise mutual information between segment k
 * and everything after it,
 *   PMI_k = log p(u_{>k} | x, u_{≤k}) − log p(u_{>k} | x, u_{<k}),
 * where the second term scores the same continuation after a prefix with segment k removed.
 * Cost: one call scores the whole completion after the prompt (first terms for every k); the K
 * prefixes without segment k are different sequences, so each needs its own call (K more).
 */
import { parseConfig } from '@rred/core';
import type { LanguageModel, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { z } from 'zod';
import { CostMeter } from './cost';
import { exitPoints } from './exit-points';
import { sumLogprobs } from './logspace';
import type { EstimatorInputs, EstimatorResult } from './types';

export const looConfigSchema = z
  .object({
    includeAnswer: z
      .boolean()
      .default(true)
      .describe(
        'Whether u_{>k} includes the answer segment (`</think>`, answer, `<eos>`) after the thinking (App. 10.2: "all of the subsequent segments"). ' +
          'With false, PMI_K = 0 (nothing follows the last thinking segment).',
      ),
  })
  .strict();

type LooConfig = z.infer<typeof looConfigSchema>;
export type LooConfigInput = z.input<typeof looConfigSchema>;

interface LooExtra {
  /** log p(u_{>k} | x, u_{≤k}), k = 1..K. */
  logpWith: number[];
  /** log p(u_{>k} | x, u_{<k}), k = 1..K. */
  logpWithout: number[];
  config: LooConfig;
}

export async function leaveOneOut(
  model: LanguageModel,
  trace: Trace,
  segments: Segment[],
  inputs: EstimatorInputs,
  config: LooConfigInput = {},
): Promise<EstimatorResult<LooExtra>> {
  const cfg = parseConfig(looConfigSchema, config ?? {}, 'loo config');
  const meter = new CostMeter();
  exitPoints(trace, segments, inputs.tokens); // validation only
  const { prompt, completion } = trace;
  const targetEnd = cfg.includeAnswer ? completion.length : trace.thinkEnd;
  if (segments.length === 0 || targetEnd === 0) {
    return { method: 'loo', credits: segments.map(() => 0), extra: { logpWith: [], logpWithout: [], config: cfg }, cost: meter.finish() };
  }

  // perToken[t] = log p(completion[t] | prompt, completion[<t]) under the model (not the stored sampling logprobs,
  // so the two terms come from the same forward computation).
  const full = await model.scoreAfterPrefixes(prompt, [{ exitAt: prompt.length, suffix: completion.slice(0, targetEnd) }]);
  meter.add(full.cost);
  const perToken = full.logprobs[0];
  const logpWith = segments.map((seg) => sumLogprobs(perToken.slice(seg.end, targetEnd)));

  const logpWithout: number[] = [];
  for (const seg of segments) {
    const rest = completion.slice(seg.end, targetEnd);
    if (rest.length === 0) {
      logpWithout.push(0);
      continue;
    }
    const skipped = [...prompt, ...completion.slice(0, seg.start)];
    const res = await model.scoreAfterPrefixes(skipped, [{ exitAt: skipped.length, suffix: rest }]);
    meter.add(res.cost);
    logpWithout.push(sumLogprobs(res.logprobs[0]));
  }
  return {
    method: 'loo',
    credits: logpWith.map((w, i) => w - logpWithout[i]),
    extra: { logpWith, logpWithout, config: cfg },
    cost: meter.finish(),
  };
}
