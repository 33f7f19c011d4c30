/**
 * The multi-attempt format (packages/training/README.md, "Several attempts"): a rollout is attempt,
 * verifier feedback, attempt, … up to K attempts or the first correct one. An attempt is what a single-attempt
 * completion is (thinking `</think>` answer `<eos>`); the verifier judges it with `verify` and, when it is wrong
 * and attempts remain, writes the feedback tokens `bad<think>`, which open the next attempt. The model never
 * chooses those tokens: they are masked out of every loss and are never an estimator's generated tokens.
 */
import type { SequenceTokenizer } from '../prompt';
import { verify } from '../verify';

/** The verifier's words after a wrong attempt (a hard verifier: wrong, nothing more); in TASK_ALPHABET. */
const FEEDBACK_TEXT = 'bad';

/** The tokens the verifier writes after a wrong attempt: `bad` then `<think>`, which opens the next attempt. */
export function feedbackTokens(tokenizer: Pick<SequenceTokenizer, 'encode' | 'think'>): number[] {
  return [...tokenizer.encode(FEEDBACK_TEXT), tokenizer.think];
}

/** Token span [start, end) of a completion. */
interface Span {
  start: number;
  end: number;
}

/** Where the attempts and the verifier's feedback sit in a multi-attempt completion (everything after the prompt). */
interface AttemptLayout {
  attempts: Span[];
  feedback: Span[];
}

/** Lays out attempts with the feedback between consecutive ones: the completion and its spans. */
export function layoutAttempts(
  attempts: readonly (readonly number[])[],
  feedback: readonly number[],
): { completion: number[] } & AttemptLayout {
  const completion: number[] = [];
  const layout: AttemptLayout = { attempts: [], feedback: [] };
  attempts.forEach((a, k) => {
    if (k > 0) {
      layout.feedback.push({ start: completion.length, end: completion.length + feedback.length });
      completion.push(...feedback);
    }
    layout.attempts.push({ start: completion.length, end: completion.length + a.length });
    completion.push(...a);
  });
  return { completion, ...layout };
}

/** The completion positions the verifier wrote (no loss, not generated). */
export function feedbackPositions(layout: AttemptLayout): number[] {
  return layout.feedback.flatMap((s) => Array.from({ length: s.end - s.start }, (_, i) => s.start + i));
}

/** ζ of one attempt, r_k in {0, 1}: the task's verifier on the attempt's own text. */
export function attemptReward(attemptText: string, expectedAnswer: string, stopped: boolean): { reward: 0 | 1; answer: string | null } {
  const v = verify(attemptText, expectedAnswer, stopped);
  return { reward: v.reward, answer: v.answer };
}
