/** Held-out evaluation of a model in the multi-attempt format: Verification@K, pass@1 and attempts used per problem. */
import { mean, Rng } from '@rred/core';
import type { TransformerLM } from '@rred/lm';
import { attemptReward, feedbackTokens, promptTokens, type TaskRecord } from '@rred/tasks';
import { sampleRollouts, successByK, type MultiAttemptPrompt, type MultiAttemptSetup } from '@rred/training';

/** Rows per sampler call (memory, not results: every row draws from its own position in one stream per batch). */
const BATCH_ROWS = 32;

interface HeldOut {
  /** Mean over problems of the share of rollouts that succeed by K. */
  verificationAtK: number;
  /** Mean over problems of the share of first attempts that are right. */
  passAt1: number;
  /** Mean attempts per rollout. */
  attemptsUsed: number;
  /** Share of second attempts (after a wrong first) that are right. */
  fixRate: number;
  rollouts: number;
}

/** The task's verifier and feedback for a model's tokenizer. */
export function taskVerifier(lm: TransformerLM): Pick<MultiAttemptSetup, 'attemptReward' | 'feedback' | 'tokenizer' | 'contextLength'> {
  const tok = lm.tokenizer;
  return {
    attemptReward: (p, attempt, stopped) => attemptReward(tok.decode(attempt), p.answer, stopped),
    feedback: feedbackTokens(tok),
    tokenizer: tok,
    contextLength: lm.maxLength,
  };
}

export function taskPrompts(lm: TransformerLM, records: readonly TaskRecord[]): MultiAttemptPrompt[] {
  return records.map((r) => ({ id: r.id, tokens: promptTokens(lm.tokenizer, r.problem), answer: r.answer }));
}

export async function evaluateHeldOut(
  lm: TransformerLM,
  records: readonly TaskRecord[],
  o: { attempts: number; maxNewTokensPerAttempt: number; temperature: number; samplesPerProblem: number },
  rng: Rng,
  onBatch: (rows: number) => void = () => {},
): Promise<HeldOut> {
  const prompts = taskPrompts(lm, records);
  const rows = prompts.flatMap((p) => Array.from({ length: o.samplesPerProblem }, () => p));
  const setup = { sampler: lm, ...taskVerifier(lm) };
  const all: Awaited<ReturnType<typeof sampleRollouts>> = [];
  for (let b = 0; b < rows.length; b += BATCH_ROWS) {
    const batch = rows.slice(b, b + BATCH_ROWS);
    all.push(...(await sampleRollouts(setup, batch, o, rng.fork(`batch-${b / BATCH_ROWS}`))));
    onBatch(batch.length);
  }
  const perProblem = (f: (i: number) => number) =>
    mean(prompts.map((_, p) => mean(Array.from({ length: o.samplesPerProblem }, (_, s) => f(p * o.samplesPerProblem + s)))));
  const second = all.filter((r) => r.rewards.length >= 2);
  return {
    verificationAtK: perProblem((i) => successByK(all[i].rewards)),
    passAt1: perProblem((i) => all[i].rewards[0]),
    attemptsUsed: mean(all.map((r) => r.rewards.length)),
    fixRate: second.length > 0 ? mean(second.map((r) => r.rewards[1])) : NaN,
    rollouts: all.length,
  };
}
