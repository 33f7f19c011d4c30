import { z } from 'zod';
import { parseConfig, UserError } from '@rred/core';

const maxSegments = (dflt: number, why: string) =>
  z.number().int().min(1).default(dflt).describe(`Upper bound K on the number of segments (exit points). Integer >= 1. ${why}`);

const keywordFields = {
  newline: z
    .boolean()
    .default(true)
    .describe('Cut after every token whose text contains a newline (paper Sec. 3.1: generic keywords such as a newline).'),
  markers: z
    .array(z.string().min(1))
    .default(['wait'])
    .describe(
      'Marker words that start a new segment (cut before the token where the word begins), matched as whole words. ' +
        "'wait' is the subthought marker of Sec. 3.1 that the task produces (its corrections); Sec. 3.1's 'but' cannot occur " +
        "in the task alphabet (no 'u'), so it is not listed — pass it for other texts. Any non-empty strings.",
    ),
  caseSensitive: z.boolean().default(false).describe('Match marker words case-sensitively.'),
};

/** Keyword split (Sec. 3.1): newline tokens and marker words. */
export const KeywordConfigSchema = z
  .object({
    strategy: z.literal('keyword').describe("Keyword segmentation: 'keyword'."),
    ...keywordFields,
    maxSegments: maxSegments(64, 'When there are more keyword cuts, K-1 of them, evenly spread over the candidates, are kept.'),
  })
  .strict();

/** Top-entropy cut points: the K-1 highest-entropy tokens each start a segment. */
export const EntropyConfigSchema = z
  .object({
    strategy: z.literal('entropy').describe("Entropy cut points: 'entropy'."),
    maxSegments: maxSegments(8, 'The K-1 highest-entropy positions (ties: earlier first) become cuts.'),
  })
  .strict();

/** Probability cut points as in Segment Policy Optimization: tokens with p < τ, every k-th kept. */
export const CutpointConfigSchema = z
  .object({
    strategy: z.literal('cutpoint').describe("Probability cut points (Segment Policy Optimization): 'cutpoint'."),
    tau: z
      .number()
      .gt(0)
      .max(1)
      .default(0.9)
      .describe('A token whose sampled probability p = exp(logprob) is below tau is a cut-point candidate. In (0, 1].'),
    keepEvery: z
      .number()
      .int()
      .min(1)
      .default(2)
      .describe('Keep every k-th candidate (the k-th, 2k-th, ...) as a cut, so each segment holds k low-probability tokens. Integer >= 1.'),
    maxSegments: maxSegments(16, 'When more cuts remain, K-1 of them, evenly spread, are kept.'),
  })
  .strict();

/** Fixed-length segments. */
export const FixedConfigSchema = z
  .object({
    strategy: z.literal('fixed').describe("Fixed-length segments: 'fixed'."),
    segmentLength: z.number().int().min(1).default(16).describe('Tokens per segment (the last may be shorter). Integer >= 1.'),
    maxSegments: maxSegments(64, 'When ceil(T / segmentLength) > K the length grows to ceil(T / K).'),
  })
  .strict();

/** Hybrid (Sec. 3.1): keyword split, then merge the adjacent pair with the lowest combined entropy until ≤ K remain. */
export const HybridConfigSchema = z
  .object({
    strategy: z.literal('hybrid').describe("Hybrid keyword-entropy segmentation (paper Sec. 3.1): 'hybrid'."),
    ...keywordFields,
    maxSegments: maxSegments(8, 'Merging stops once at most K segments remain.'),
    mergeBy: z
      .enum(['pair-sum', 'boundary'])
      .default('pair-sum')
      .describe(
        "Combined entropy of an adjacent pair. 'pair-sum': the sum of the token entropies of both segments, " +
          "so low-information pieces merge first and segments even out in likelihood (Sec. 3.1). 'boundary': the entropy " +
          'of the first token of the second segment, so the exit points kept are the highest-entropy ones.',
      ),
  })
  .strict();

export const SegmentationConfigSchema = z.discriminatedUnion('strategy', [
  KeywordConfigSchema,
  EntropyConfigSchema,
  CutpointConfigSchema,
  FixedConfigSchema,
  HybridConfigSchema,
]);

export type KeywordConfig = z.infer<typeof KeywordConfigSchema>;
export type EntropyConfig = z.infer<typeof EntropyConfigSchema>;
export type CutpointConfig = z.infer<typeof CutpointConfigSchema>;
export type FixedConfig = z.infer<typeof FixedConfigSchema>;
export type HybridConfig = z.infer<typeof HybridConfigSchema>;
export type SegmentationConfig = z.infer<typeof SegmentationConfigSchema>;
type SegmentationStrategy = SegmentationConfig['strategy'];
export const SEGMENTATION_STRATEGIES: readonly SegmentationStrategy[] = ['keyword', 'entropy', 'cutpoint', 'fixed', 'hybrid'];

/** Validates a segmentation config (defaults filled in); the default strategy is 'hybrid'. */
export function segmentationConfig(input: unknown = { strategy: 'hybrid' }, source = 'segmentation config'): SegmentationConfig {
  if (input && typeof input === 'object' && !Array.isArray(input) && !('strategy' in input)) {
    throw new UserError(
      `invalid config (${source}): strategy: got nothing, expected one of ${SEGMENTATION_STRATEGIES.map((s) => `'${s}'`).join(', ')}`,
    );
  }
  return parseConfig(SegmentationConfigSchema, input, source);
}
