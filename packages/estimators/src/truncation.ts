/**
 * What a smaller limit M′ would have cost (Fig. 4), from the records of one MC run with limit M ≥ M′:
 * a continuation is cut by M′ when it did not reach `<eos>` within its M′-limit. No resampling.
 * `horizon` says what M′ limits, as in the MC config: each continuation ('continuation'), or the
 * whole completion ('completion': the continuation from s_k may use M′ − |u_1..u_k| tokens).
 */
import { UserError } from '@rred/core';
import { exitPointMeans, type ContinuationRecord } from './mc';

interface TruncationLoss {
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

export function truncationLoss(
  records: readonly ContinuationRecord[],
  Mprime: number,
  horizon: 'continuation' | 'completion' = 'continuation',
): TruncationLoss {
  if (!Number.isInteger(Mprime) || Mprime < 1) throw new UserError(`truncationLoss: Mprime must be an integer ≥ 1, got ${Mprime}`);
  const limitOf = (r: ContinuationRecord) => (horizon === 'continuation' ? Mprime : Mprime - r.offset);
  // A continuation sampled under a smaller limit than M′ asks for might have finished later: unknowable without resampling.
  const short = records.find((r) => r.truncated && r.limit < limitOf(r));
  if (short)
    throw new UserError(
      `truncationLoss: Mprime ${Mprime} (${horizon}) exceeds the sampling limit of these records (a continuation was sampled with at most ${short.limit} tokens)`,
    );
  const exitPointCount = records.reduce((m, r) => Math.max(m, r.exitPoint + 1), 0);
  const perExitPoint = Array.from({ length: exitPointCount }, (_, k) => ({ exitPoint: k, total: 0, cut: 0, cutCorrect: 0 }));
  const atLimit: ContinuationRecord[] = records.map((r) => {
    const isCut = r.truncated || r.length > limitOf(r);
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
