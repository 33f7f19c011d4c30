/**
 * What a smaller continuation limit M′ would have cost (Fig. 4), from the records of one MC run with
 * limit M ≥ M′: a continuation is cut by M′ when it did not reach `<eos>` within M′ tokens. No resampling.
 */
import { UserError } from '@rred/core';
import { exitPointMeans, type ContinuationRecord } from './mc';

export interface TruncationLoss {
  limit: number;
  total: number;
  /** Continuations cut by M′ (includes those already cut by M). */
  cut: number;
  /** Of those, how many had finished with a correct answer under M (the correct answers M′ loses). */
  cutCorrect: number;
  /** V_MC(s_k) recomputed as if the limit had been M′ (cut continuations score 0). */
  valuesAtLimit: number[];
  perExitPoint: Array<{ exitPoint: number; total: number; cut: number; cutCorrect: number }>;
}

export function truncationLoss(records: readonly ContinuationRecord[], Mprime: number): TruncationLoss {
  if (!Number.isInteger(Mprime) || Mprime < 1) throw new UserError(`truncationLoss: Mprime must be an integer ≥ 1, got ${Mprime}`);
  // A continuation truncated at M < M′ might have finished by M′: that cannot be known without resampling.
  const short = records.find((r) => r.truncated && r.length < Mprime);
  if (short) throw new UserError(`truncationLoss: Mprime ${Mprime} exceeds the sampling limit M = ${short.length} of these records`);
  const exitPointCount = records.reduce((m, r) => Math.max(m, r.exitPoint + 1), 0);
  const perExitPoint = Array.from({ length: exitPointCount }, (_, k) => ({ exitPoint: k, total: 0, cut: 0, cutCorrect: 0 }));
  const atLimit: ContinuationRecord[] = records.map((r) => {
    const isCut = r.truncated || r.length > Mprime;
    const row = perExitPoint[r.exitPoint];
    row.total++;
    if (isCut) {
      row.cut++;
      if (r.correct) row.cutCorrect++;
    }
    return isCut ? { ...r, truncated: true, utility: 0, correct: false } : r;
  });
  return {
    limit: Mprime,
    total: records.length,
    cut: perExitPoint.reduce((a, p) => a + p.cut, 0),
    cutCorrect: perExitPoint.reduce((a, p) => a + p.cutCorrect, 0),
    valuesAtLimit: exitPointMeans(atLimit, exitPointCount).values,
    perExitPoint,
  };
}
