/**
 * VeriGate's process scores from RREDCoT (an intrinsic PRM): for each gated trace, its segments are
 * the steps and the segment credits r_k = Δ log v̂ are the step scores; the answer tokens after the
 * thinking form a last step scored 0 (no exit point inside it). Future-cumulating them (training's
 * verigate.ts) gives F_{i,k} = Σ_{j ≥ k} r_j = log v̂(s_K) − log v̂(s_{k−1}): the progress still to come
 * from step k on. A trace the estimator cannot score gets null (advantage 0).
 */
import type { Trace } from '@rred/lm';
import type { StepScoreHook, StepScores } from '@rred/training';
import { estimateCredits, type EstimatorHookOptions, type RedistributionCallStats } from './estimator-hook';

export type StepScoreSource = StepScoreHook & { lastCall(): RedistributionCallStats };

export function creditStepScores(o: EstimatorHookOptions): StepScoreSource {
  let last: RedistributionCallStats = { estimated: 0, fallback: 0 };
  const hook: StepScoreHook = async (traces: Trace[], context) => {
    const chosen = traces.flatMap((t, i) => (context.gated[i] && t.completion.length > 0 ? [i] : []));
    const credits = await estimateCredits(o, traces, chosen, context.rng);
    const out: (StepScores | null)[] = traces.map(() => null);
    let fallback = 0;
    for (const [i, c] of credits) {
      if (!c || c.segments.length === 0) {
        fallback++;
        continue;
      }
      const t = traces[i];
      const ends = c.segments.map((s) => s.end);
      const scores = [...c.credits];
      if (t.thinkEnd < t.completion.length) {
        ends.push(t.completion.length);
        scores.push(0);
      }
      out[i] = { ends, scores };
    }
    last = { estimated: credits.size - fallback, fallback };
    return out;
  };
  return Object.assign(hook, { lastCall: () => last });
}
