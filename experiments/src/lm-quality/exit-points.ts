import { ProgressBar, type Rng } from '@rred/core';
import { rredcot, truncatedMc } from '@rred/estimators';
import type { Trace, TransformerLM } from '@rred/lm';
import { segment, segmentationConfig } from '@rred/segmentation';
import {
  THINK_CLOSE,
  problemFromRecord,
  recordAlignment,
  recordReachedSubgoals,
  recordStepLines,
  referenceTokens,
  type TaskRecord,
} from '@rred/tasks';
import { continuationReward, generateRollouts, specialTokens } from '../common/rollouts';
import type { LmQualityConfig } from './config';

/** One exit point of one T = 1 trace: what the forced-exit immediate term says, and what MC says. */
interface CalibrationPoint {
  problemId: string;
  /** Exit point k (0 = the prompt) and its relative position k / K. */
  k: number;
  position: number;
  /** p(y* <eos> | s_k, </think>): the forced-exit answer probability (RREDCoT exit 'forced', terms 'immediate'). */
  forced: number;
  /** V_MC(s_k): mean ζ of the sampled continuations (thinking, then answer) from s_k. */
  mc: number;
}

/** The two term differences the exit-point study reports for one correct trace, in nats. */
interface TermDifferences {
  problemId: string;
  /** log V(s_1) − log V(s_0) (exit 'forced', valueSuffix 'remaining', referencePooling 'sum'). */
  valueStep1: number;
  /** log I(s_K) − log I(s_0) (forced exit). */
  immediateGain: number;
  segments: number;
}

/**
 * The exit-point study of `lm:evaluate`: one T = 1 rollout per problem, an exit point after
 * every line (keyword segmentation: newline + `wait`), and at each exit point of the first `problems`
 * traces the forced-exit answer probability next to a truncated-MC value (reliability); on the correct traces of all `termsProblems`, the value and
 * immediate differences of RREDCoT with exit 'forced' and valueSuffix 'remaining'.
 */
export async function exitPointStudy(
  lm: TransformerLM,
  records: readonly TaskRecord[],
  c: NonNullable<LmQualityConfig['calibration']>,
  batchSize: number,
  rng: Rng,
): Promise<{ points: CalibrationPoint[]; terms: TermDifferences[]; traces: number }> {
  const tokens = specialTokens(lm.tokenizer);
  const alignment = recordAlignment(records[0], lm.tokenizer); // one split: one rendering
  const seg = segmentationConfig({ strategy: 'keyword' });
  const traces = await generateRollouts(lm, records, { temperature: 1, maxNewTokens: c.maxNewTokens, batchSize }, rng.fork('rollouts'));
  const points: CalibrationPoint[] = [];
  const terms: TermDifferences[] = [];
  const bar = new ProgressBar('exit points: forced exit vs MC', traces.length);
  for (let i = 0; i < traces.length; i++) {
    const trace: Trace = traces[i];
    bar.tick(1);
    if (trace.thinkEnd >= trace.completion.length) continue; // never closed its thinking: no exit-point structure
    const record = records[i];
    const segments = segment(trace, seg, (id) => lm.tokenizer.tokenText(id));
    const inputs = { tokens, references: { dataset: referenceTokens(record, lm.tokenizer, 16) }, alignment };
    const K = segments.length;
    if (i < c.problems) {
      const forced = await rredcot(lm, trace, segments, inputs, { terms: 'immediate', exit: 'forced' });
      const mc = await truncatedMc(
        lm,
        trace,
        segments,
        { tokens, reward: continuationReward(lm.tokenizer, record) },
        { samplesPerExitPoint: c.mcSamples, maxNewTokens: c.maxNewTokens, horizon: 'completion', batchSize },
        rng.fork(`mc-${trace.problemId}`),
      );
      forced.extra.logImmediate!.forEach((lp, k) =>
        points.push({ problemId: trace.problemId, k, position: K === 0 ? 1 : k / K, forced: Math.exp(lp), mc: mc.values![k] }),
      );
    }
    if (trace.reward > 0 && K >= 1) {
      const both = await rredcot(lm, trace, segments, inputs, {
        terms: 'immediatePlusValue',
        exit: 'forced',
        valueSuffix: 'remaining',
        referencePooling: 'sum',
      });
      const logV = both.extra.logValue!;
      const logI = both.extra.logImmediate!;
      terms.push({ problemId: trace.problemId, valueStep1: logV[1] - logV[0], immediateGain: logI[K] - logI[0], segments: K });
    }
  }
  return { points, terms, traces: traces.length };
}

/**
 * A T = 1 sample exits early when it closes its thinking before the line of the problem's last step (the
 * variable every other one feeds, so the answer needs it) AND before it has written a step line for every
 * step: it stopped short. A sample that skips an intermediate line but computes the last one, or writes a
 * line for every step but misnames, duplicates or garbles one so that the last variable is never named,
 * is a wrong solution, not an early exit (`missesLastSubgoal` counts those too). Lines are read in the
 * record's rendering (the task's notation, or the free-form bed's prose).
 */
export function isEarlyExit(completionText: string, record: TaskRecord): boolean {
  const close = completionText.indexOf(THINK_CLOSE);
  if (!missesLastSubgoal(completionText, record)) return false;
  return recordStepLines(record, completionText.slice(0, close)) < problemFromRecord(record).steps.length;
}

/** The sample closes its thinking without a line naming the problem's last variable (early exits and wrong last lines alike). */
export function missesLastSubgoal(completionText: string, record: TaskRecord): boolean {
  const close = completionText.indexOf(THINK_CLOSE);
  const steps = problemFromRecord(record).steps;
  const last = steps[steps.length - 1]?.name;
  return close >= 0 && last !== undefined && !recordReachedSubgoals(record, completionText.slice(0, close)).has(last);
}
