/**
 * VeriGate (verifier-gated step-level GRPO; related-abstracts.txt), as implemented here:
 *
 *  - Gate. A group whose verifier rewards all coincide (zero std: GRPO's advantage is 0 for every member)
 *    is "degenerate"; only such groups use process scores. Every other group keeps the verifier's
 *    group-relative advantage A_i (times σ, as any GRPO step).
 *  - Future-cumulated rewards. Trace i of a degenerate group has steps k = 1..K_i covering its completion,
 *    with process scores p_{i,k}; F_{i,k} = Σ_{j ≥ k} p_{i,j} (the score still to come from step k on).
 *  - Group-normalized token advantages. Pool the F_{i,k} of every scored trace of the group:
 *    Â_{i,t} = (F_{i,k(t)} − mean F) / (sd F + 1e-4), with k(t) the step holding token t and sd the
 *    sample SD (n − 1), as in `groupAdvantages`; a pool of fewer than 2 values or zero spread gives 0.
 *    A trace without scores (the scorer could not score it) gets 0 on every token, as in GRPO.
 */
import { mean } from '@rred/core';
import { sampleStd } from './advantages';

/** Process scores of one completion: step k covers completion tokens [ends[k−1], ends[k]) (ends[−1] = 0). */
export interface StepScores {
  /** Strictly increasing; the last equals the completion length. */
  ends: number[];
  /** p_{i,k}, one per step, finite. */
  scores: number[];
}

/** Token advantages of one degenerate group: row i has `lengths[i]` entries. */
export function verigateGroupAdvantages(steps: readonly (StepScores | null)[], lengths: readonly number[]): number[][] {
  if (steps.length !== lengths.length) throw new RangeError(`verigate: ${steps.length} score rows for ${lengths.length} completions`);
  const cumulated = steps.map((s, i) => (s ? futureCumulated(s, lengths[i], i) : null));
  const pool = cumulated.flatMap((f) => f ?? []);
  const m = mean(pool);
  const sd = sampleStd(pool);
  return cumulated.map((f, i) => {
    const row = new Array<number>(lengths[i]).fill(0);
    if (!f || !(sd > 0)) return row;
    const { ends } = steps[i]!;
    let start = 0;
    ends.forEach((end, k) => {
      for (let t = start; t < end; t++) row[t] = (f[k] - m) / (sd + 1e-4);
      start = end;
    });
    return row;
  });
}

function futureCumulated(s: StepScores, length: number, row: number): number[] {
  const K = s.scores.length;
  if (s.ends.length !== K) throw new RangeError(`verigate: completion ${row} has ${K} scores but ${s.ends.length} step ends`);
  if (K === 0 || s.ends[K - 1] !== length)
    throw new RangeError(`verigate: the steps of completion ${row} end at ${s.ends[K - 1] ?? 0}, its length is ${length}`);
  s.ends.forEach((e, k) => {
    if (!(Number.isInteger(e) && e > (k === 0 ? 0 : s.ends[k - 1])))
      throw new RangeError(
        `verigate: step ends of completion ${row} must be strictly increasing positive integers, got [${s.ends.join(', ')}]`,
      );
  });
  const bad = s.scores.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new RangeError(`verigate: score ${bad} of completion ${row} is ${s.scores[bad]}`);
  const out = new Array<number>(K);
  let acc = 0;
  for (let k = K - 1; k >= 0; k--) {
    acc += s.scores[k];
    out[k] = acc;
  }
  return out;
}
