/**
 * VeriGate's process scores (`StepScoreHook`s of @rred/training), in two forms.
 *
 * `creditStepScores`, from RREDCoT (an intrinsic PRM): for each gated trace, its segments are
 * the steps and the segment credits r_k = Δ log v̂ are the step scores; the answer tokens after the
 * thinking form a last step scored 0 (no exit point inside it). Future-cumulating them (training's
 * verigate.ts) gives F_{i,k} = Σ_{j ≥ k} r_j = log v̂(s_K) − log v̂(s_{k−1}): the progress still to come
 * from step k on. A trace the estimator cannot score gets null (advantage 0).
 */
import type { Trace } from '@rred/lm';
import { segment, type SegmentationConfig } from '@rred/segmentation';
import type { StepScoreHook, StepScores } from '@rred/training';
import { estimateCredits, type EstimatorHookOptions, type RedistributionCallStats, type TraceCredits } from './estimator-hook';

export type StepScoreSource = StepScoreHook & { lastCall(): RedistributionCallStats };

export function creditStepScores(o: EstimatorHookOptions): StepScoreSource {
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook: StepScoreHook = async (traces: Trace[], context) => {
    const chosen = traces.flatMap((t, i) => (context.gated[i] && t.completion.length > 0 ? [i] : []));
    const { out, stats } = stepRows(traces, await estimateCredits(o, traces, chosen, context.rng), () => 0);
    last = stats;
    return out;
  };
  return Object.assign(hook, { lastCall: () => last });
}

/**
 * `oracleStepScores`, the task's step oracle as the PRM: a segment scores 1 when it ends before the
 * first token of the trace's first uncorrected wrong line (a correct step), 0 from the segment holding
 * it on; a trace without a located error scores 1 on every segment. The answer step is scored by the
 * verifier, the oracle of that step: its reward (1 correct, 0 wrong). (Scoring it 0, as the intrinsic
 * form does, made it the worst step of every all-correct group: the fine-tuning comparison's
 * verigate-oracle arm learnt to stop answering.)
 */
export function oracleStepScores(o: {
  segmentation: SegmentationConfig;
  tokenText: (id: number) => string;
  firstError: (trace: Trace) => number | null;
}): StepScoreSource {
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook: StepScoreHook = async (traces: Trace[], context) => {
    const scored = new Map<number, TraceCredits>();
    traces.forEach((t, i) => {
      if (!context.gated[i] || t.completion.length === 0) return;
      const segments = segment(t, o.segmentation, o.tokenText);
      const at = o.firstError(t);
      scored.set(i, { segments, credits: segments.map((s) => (at === null || s.end <= at ? 1 : 0)) });
    });
    const { out, stats } = stepRows(traces, scored, (i) => context.rewards[i]);
    last = stats;
    return out;
  };
  return Object.assign(hook, { lastCall: () => last });
}

/** Step rows from per-segment scores: the segments, then the answer tokens as a last step scored `answerScore(i)`; null without segments. */
function stepRows(
  traces: Trace[],
  scored: Map<number, TraceCredits>,
  answerScore: (trace: number) => number,
): { out: (StepScores | null)[]; stats: RedistributionCallStats } {
  const out: (StepScores | null)[] = traces.map(() => null);
  let fallback = 0;
  for (const [i, c] of scored) {
    if (!c || c.segments.length === 0) {
      fallback++;
      continue;
    }
    const t = traces[i];
    const ends = c.segments.map((s) => s.end);
    const scores = [...c.credits];
    if (t.thinkEnd < t.completion.length) {
      ends.push(t.completion.length);
      scores.push(answerScore(i));
    }
    out[i] = { ends, scores };
  }
  return { out, stats: { estimated: scored.size - fallback, fallback } };
}
