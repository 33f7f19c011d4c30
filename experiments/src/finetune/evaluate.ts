/**
 * avg@k and pass@k of a model on every eval split, with the draws of one seed (`Rng(seed).fork('eval-<split>')`):
 * the same draws for the starting model (on the parent run) and for every child's final and best weights,
 * so methods and the start are compared on paired samples.
 */
import { Rng } from '@rred/core';
import { completerFromModel, evaluateSplit } from '@rred/evaluation';
import type { TransformerLM } from '@rred/lm';
import type { TaskRecord } from '@rred/tasks';

export interface EvalSettings {
  splits: readonly string[];
  samplesPerProblem: number;
  maxNewTokens: number;
  batchSize: number;
}

/** Per split: avg@k and pass@k (fractions). */
export type SplitResults = Record<string, { avg: number; pass: number }>;

/** What one evaluation of a record set draws: k samples per problem at T = 1, up to maxNewTokens each. */
type RecordEvalSettings = Omit<EvalSettings, 'splits'>;

/** avg@k and pass@k (fractions) of `model` on `records`, sampling at temperature 1 with `rng`. */
export async function evaluateRecords(
  model: TransformerLM,
  records: readonly TaskRecord[],
  s: RecordEvalSettings,
  rng: Rng,
): Promise<{ avg: number; pass: number }> {
  const report = await evaluateSplit(
    completerFromModel(model, model.tokenizer.eos),
    model.tokenizer,
    records,
    { samplesPerProblem: s.samplesPerProblem, temperature: 1, maxNewTokens: s.maxNewTokens, batchSize: s.batchSize },
    rng,
  );
  return { avg: report.metrics.avgAtK.value, pass: report.metrics.passAtK.value };
}

export async function evaluateSplits(
  model: TransformerLM,
  evalSplits: Record<string, readonly TaskRecord[]>,
  s: EvalSettings,
  seed: number,
): Promise<SplitResults> {
  const rng = new Rng(seed);
  const out: SplitResults = {};
  for (const split of s.splits) out[split] = await evaluateRecords(model, evalSplits[split], s, rng.fork(`eval-${split}`));
  return out;
}
