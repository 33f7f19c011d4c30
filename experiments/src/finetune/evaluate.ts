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

export async function evaluateSplits(
  model: TransformerLM,
  evalSplits: Record<string, readonly TaskRecord[]>,
  s: EvalSettings,
  seed: number,
): Promise<SplitResults> {
  const complete = completerFromModel(model, model.tokenizer.eos);
  const rng = new Rng(seed);
  const out: SplitResults = {};
  for (const split of s.splits) {
    const report = await evaluateSplit(
      complete,
      model.tokenizer,
      evalSplits[split],
      { samplesPerProblem: s.samplesPerProblem, temperature: 1, maxNewTokens: s.maxNewTokens, batchSize: s.batchSize },
      rng.fork(`eval-${split}`),
    );
    out[split] = { avg: report.metrics.avgAtK.value, pass: report.metrics.passAtK.value };
  }
  return out;
}
