/**
 * Multi-attempt SFT examples: the format's layout with failed attempts followed by the verifier's feedback and
 * a later attempt that fixes the mistake some of the time. A failed attempt is the canonical-order solution with
 * one uncorrected wrong line (its wrong answer follows); the fix is the same order written correctly, so the
 * later attempt differs from the failed one from the wrong line on.
 */
import { z } from 'zod';
import type { Rng } from '@rred/core';
import type { Problem } from '../problem';
import type { SequenceTokenizer } from '../prompt';
import { tokenizeExample } from '../prompt';
import { sftExample, type SftConfig } from '../sft';
import { feedbackPositions, feedbackTokens, layoutAttempts } from './format';

export const MultiAttemptMixSchema = z
  .object({
    attempts: z.number().int().min(2).max(5).default(3).describe('K, attempts at most in one example (as in a rollout). Integer in 2..5.'),
    rate: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        'Probability that an example of a problem with ≤ maxSteps steps is a multi-attempt one; the rest are the base mix. In [0,1].',
      ),
    fixRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.6)
      .describe(
        'After a failed attempt, probability that the next one is the fix (correct, ending the example); otherwise it fails ' +
          'again, until K attempts. In [0,1].',
      ),
    maxSteps: z
      .number()
      .int()
      .min(1)
      .default(4)
      .describe('Only problems with at most this many steps get multi-attempt examples (K attempts must fit the context). Integer ≥ 1.'),
    failedAttemptLoss: z
      .enum(['mask', 'train'])
      .default('mask')
      .describe(
        "Whether a failed attempt's tokens get loss: 'mask' (the model makes only its own mistakes and learns what follows " +
          "feedback) or 'train'. The feedback tokens never get loss.",
      ),
  })
  .strict();
export type MultiAttemptMix = z.infer<typeof MultiAttemptMixSchema>;

/** One tokenized SFT example: `untrained` holds the feedback positions (and the failed attempts' under 'mask'). */
interface TokenExample {
  prompt: number[];
  completion: number[];
  untrained?: number[];
}

/** Draws failed attempts, with up to 8 redraws when the wrong line happens to leave the answer right. */
function failedAttempt(problem: Problem, mix: SftConfig, rng: Rng) {
  const config: SftConfig = { ...mix, alternativeOrderRate: 0, errorRate: 1, correctionRate: 0, earlyExitRate: 0, compositeRate: 0 };
  for (let i = 0; i < 8; i++) {
    const ex = sftExample(problem, config, rng);
    if (ex.answer !== ex.expectedAnswer) return ex;
  }
  return null;
}

/**
 * The corpus of one epoch: per problem, with probability `multi.rate` (problems of ≤ maxSteps steps) a
 * multi-attempt example, else the base mix's single-attempt example (`sftExample`). All draws from `rng`, in
 * problem order.
 */
export function multiAttemptSftExamples(
  problems: readonly Problem[],
  mix: SftConfig,
  multi: MultiAttemptMix,
  tokenizer: SequenceTokenizer,
  rng: Rng,
): TokenExample[] {
  const feedback = feedbackTokens(tokenizer);
  return problems.map((problem, i) => {
    const r = rng.fork(i);
    const single = () => tokenizeExample(tokenizer, sftExample(problem, mix, r));
    if (problem.steps.length > multi.maxSteps || !(r.next() < multi.rate)) return single();
    const attempts: { tokens: number[]; untrained: number[]; failed: boolean }[] = [];
    let prompt: number[] = [];
    for (let k = 0; k < multi.attempts; k++) {
      const fix = k > 0 && r.next() < multi.fixRate;
      const ex = fix
        ? sftExample(problem, { ...mix, alternativeOrderRate: 0, errorRate: 0, earlyExitRate: 0, compositeRate: 0 }, r)
        : failedAttempt(problem, mix, r);
      if (!ex) return single();
      const t = tokenizeExample(tokenizer, ex);
      prompt = t.prompt;
      attempts.push({ tokens: t.completion, untrained: t.untrained ?? [], failed: !fix });
      if (fix) break;
    }
    const { completion, ...layout } = layoutAttempts(
      attempts.map((a) => a.tokens),
      feedback,
    );
    // under 'mask' an example whose attempts all failed would train nothing: the base mix's example instead
    if (multi.failedAttemptLoss === 'mask' && attempts.every((a) => a.failed)) return single();
    const untrained = feedbackPositions(layout);
    attempts.forEach((a, k) => {
      const { start, end } = layout.attempts[k];
      if (a.failed && multi.failedAttemptLoss === 'mask') for (let p = start; p < end; p++) untrained.push(p);
      else for (const p of a.untrained) untrained.push(start + p);
    });
    return { prompt, completion, untrained: untrained.sort((a, b) => a - b) };
  });
}
