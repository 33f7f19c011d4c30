/**
 * VeriGate (verifier-gated step-level GRPO), as implemented here:
 *
 *  - Gate. A group whose verifier rewards all coincide (zero std: GRPO's advantage is 0 for every member)
 *    is "degenerate"; only such groups use process scores. Every other group keeps the verifier's
 *    group-relative advantage A_i (times σ, as any GRPO step).
 *  - Trace i of a degenerate group has steps k = 1..K_i covering its completion, with process scores p_{i,k}.
 *  - Future-cumulated, group-normalized token advantages, in one of two orders (`VerigateOrder`):
 *    - 'normalize-then-cumulate' (default): pool the p_{i,k} of every scored trace of the group,
 *      p̃_{i,k} = (p_{i,k} − mean p) / (sd p + 1e-4), and Â_{i,t} = Σ_{j ≥ k(t)} p̃_{i,j}, the normalized
 *      score still to come from the step holding token t (the process-supervision advantage of
 *      DeepSeekMath's GRPO). A group whose steps all score alike gets 0.
 *    - 'cumulate-then-normalize' (the abstract's word order, and what the committed fine-tuning comparison ran):
 *      F_{i,k} = Σ_{j ≥ k} p_{i,j}, then Â_{i,t} = (F_{i,k(t)} − mean F) / (sd F + 1e-4) over the pooled F.
 *      F grows towards the start of every trace, so with positive scores early tokens and long traces
 *      are pushed up and the last steps (the answer) down even when every step scored the same.
 *    sd is the sample SD (n − 1), as in `groupAdvantages`; a pool of fewer than 2 values or zero spread
 *    gives 0. A trace without scores (the scorer could not score it) gets 0 on every token, as in GRPO.
 *  - Scale (`VerigateScale`), the abstract's third choice, group-normalized token-level advantages:
 *    - 'unit' (default): the group's token advantages are divided by their sample SD over every token of
 *      its scored traces (+ 1e-4), Â_{i,t} ← Â_{i,t} / (sd_t Â + 1e-4), without re-centering (re-centering
 *      after cumulating would bring back the position bias of 'cumulate-then-normalize'). A gated group then
 *      pushes with the spread of a verifier group's A_i (sample SD 1), not with a sum of up to K normalized
 *      scores, which made VeriGate's gradient norm 2.2–5.3× GRPO's.
 *    - 'none': the sums as they are.
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

export const VERIGATE_ORDERS = ['normalize-then-cumulate', 'cumulate-then-normalize'] as const;
type VerigateOrder = (typeof VERIGATE_ORDERS)[number];
export const VERIGATE_SCALES = ['unit', 'none'] as const;
type VerigateScale = (typeof VERIGATE_SCALES)[number];

/** Token advantages of one degenerate group: row i has `lengths[i]` entries. */
export function verigateGroupAdvantages(
  steps: readonly (StepScores | null)[],
  lengths: readonly number[],
  order: VerigateOrder = 'normalize-then-cumulate',
  scale: VerigateScale = 'none',
): number[][] {
  if (steps.length !== lengths.length) throw new RangeError(`verigate: ${steps.length} score rows for ${lengths.length} completions`);
  steps.forEach((s, i) => s && checkSteps(s, lengths[i], i));
  const values =
    order === 'cumulate-then-normalize'
      ? normalized(steps.map((s) => s && futureCumulated(s.scores)))
      : normalized(steps.map((s) => s?.scores ?? null)).map((p) => p && futureCumulated(p));
  const rows = values.map((v, i) => {
    const row = new Array<number>(lengths[i]).fill(0);
    if (!v) return row;
    let start = 0;
    steps[i]!.ends.forEach((end, k) => {
      for (let t = start; t < end; t++) row[t] = v[k];
      start = end;
    });
    return row;
  });
  if (scale === 'none') return rows;
  // token-level spread over the scored traces (an unscored trace's zeros are no tokens of the group's scores)
  const sd = sampleStd(rows.flatMap((r, i) => (steps[i] ? r : [])));
  return sd > 0 ? rows.map((r) => r.map((x) => x / (sd + 1e-4))) : rows;
}

/** (x − mean) / (sd + 1e-4) over the pooled values of every row; all zeros without spread. */
function normalized(rows: readonly (readonly number[] | null)[]): (number[] | null)[] {
  const pool = rows.flatMap((r) => r ?? []);
  const m = mean(pool);
  const sd = sampleStd(pool);
  return rows.map((r) => r && r.map((x) => (sd > 0 ? (x - m) / (sd + 1e-4) : 0)));
}

/** F_k = Σ_{j ≥ k} x_j. */
function futureCumulated(xs: readonly number[]): number[] {
  const out = new Array<number>(xs.length);
  let acc = 0;
  for (let k = xs.length - 1; k >= 0; k--) {
    acc += xs[k];
    out[k] = acc;
  }
  return out;
}

function checkSteps(s: StepScores, length: number, row: number): void {
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
}
