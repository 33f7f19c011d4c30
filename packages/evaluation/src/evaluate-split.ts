import { mean, type Rng, yieldToEventLoop } from '@rred/core';
import { promptTokens, verify, type SequenceTokenizer, type TaskRecord } from '@rred/tasks';
import { aggregate, type SplitMetrics } from './aggregate';

/** Generates completions for prompts; both the lm sampler and `simpleDecode` fit behind this. */
export type Completer = (
  prompts: number[][],
  options: { temperature: number; maxNewTokens: number },
  rng: Rng,
) => Promise<{ tokens: number[]; stopped: boolean }[]>;

export interface AccuracyReport {
  problems: number;
  samplesPerProblem: number;
  temperature: number;
  /** Mean verifier reward over all samples. */
  accuracy: number;
  /** Problems whose samples were neither all right nor all wrong (only meaningful with > 1 sample). */
  mixedFraction: number;
  /** Count of each verifier reason (correct, wrong, malformed, truncated, no-answer). */
  reasons: Record<string, number>;
  metrics: SplitMetrics;
  /** A few decoded completions, for reading. */
  examples: { problem: string; expected: string; completion: string; reward: number }[];
}

/**
 * Samples `samplesPerProblem` completions per record, verifies each against the record's answer and
 * reports accuracy, avg@k / pass@k / maj@k (k ≤ samplesPerProblem; Wilson or bootstrap intervals) and
 * the verifier's reasons. Completions are drawn batch by batch, each batch from its own fork of `rng`.
 */
export async function evaluateSplit(
  complete: Completer,
  tokenizer: SequenceTokenizer & { decode(ids: readonly number[]): string },
  records: readonly TaskRecord[],
  options: {
    samplesPerProblem: number;
    temperature: number;
    maxNewTokens: number;
    batchSize: number;
    /** k of avg@k / pass@k / maj@k (default samplesPerProblem; pass@k uses all n samples). */
    k?: number;
    /** Confidence interval (default Wilson 95%). */
    interval?: 'wilson' | 'bootstrap';
    level?: number;
    resamples?: number;
  },
  rng: Rng,
): Promise<AccuracyReport> {
  const prompts: number[][] = [];
  const owners: number[] = [];
  records.forEach((r, i) => {
    for (let s = 0; s < options.samplesPerProblem; s++) {
      prompts.push(promptTokens(tokenizer, r.problem));
      owners.push(i);
    }
  });
  const outputs: { tokens: number[]; stopped: boolean }[] = [];
  for (let start = 0; start < prompts.length; start += options.batchSize) {
    const chunk = prompts.slice(start, start + options.batchSize);
    outputs.push(...(await complete(chunk, options, rng.fork(`batch-${start}`))));
    await yieldToEventLoop(); // a SIGINT during a long evaluation is handled within one batch
  }
  const perProblem = records.map((r) => ({ problemId: r.id, rewards: [] as number[], answers: [] as (string | null)[] }));
  const reasons: Record<string, number> = {};
  const examples: AccuracyReport['examples'] = [];
  outputs.forEach((out, j) => {
    const record = records[owners[j]];
    const text = tokenizer.decode(out.tokens);
    const v = verify(text, record.answer, out.stopped);
    perProblem[owners[j]].rewards.push(v.reward);
    perProblem[owners[j]].answers.push(v.answer);
    reasons[v.reason] = (reasons[v.reason] ?? 0) + 1;
    if (examples.length < 4) examples.push({ problem: record.problem, expected: record.answer, completion: text, reward: v.reward });
  });
  const rewards = perProblem.flatMap((p) => p.rewards);
  const mixed = perProblem.filter((p) => p.rewards.some((x) => x > 0) && p.rewards.some((x) => x === 0)).length;
  return {
    problems: records.length,
    samplesPerProblem: options.samplesPerProblem,
    temperature: options.temperature,
    accuracy: mean(rewards),
    mixedFraction: mixed / records.length,
    reasons,
    metrics: aggregate(
      perProblem,
      {
        k: options.k ?? options.samplesPerProblem,
        interval: options.interval ?? 'wilson',
        level: options.level ?? 0.95,
        resamples: options.resamples ?? 2000,
      },
      rng.fork('ci'),
    ),
    examples,
  };
}
