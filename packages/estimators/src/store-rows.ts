/**
 * Shapes an estimator result as rows for the results store (no dependency on it), keyed by exit
 * point in the convention every package shares: exit point k = 0..K is s_k, the state after k
 * segments. One row per k = 1..K with the credit r_k and σ_k of segment k (the segment ending at
 * s_k) and v(s_k), plus a row for exit point 0 (value only) when the method estimates values.
 */
import type { EstimatorCost, EstimatorResult } from './types';

interface CreditRow {
  /** 0 = the prompt (exit point 0, value only); k = 1..K = segment k and the exit point after it. */
  exitPoint: number;
  method: string;
  /** v(s_k) in probability units, null when the method has no values. */
  value: number | null;
  /** r_k, null for exit point 0. NaN is kept (e.g. RREDCoT with no references) so it is never mistaken for 0. */
  credit: number | null;
  /** σ_k, null when the method produces no weights. */
  sigma: number | null;
}

export function toStoreRows(result: EstimatorResult<unknown>, method = result.method): { rows: CreditRow[]; cost: EstimatorCost } {
  const { credits, values, sigma } = result;
  if (values && values.length !== credits.length + 1) {
    throw new RangeError(`toStoreRows: ${values.length} values for ${credits.length} segments; expected K+1`);
  }
  if (sigma && sigma.length !== credits.length) throw new RangeError(`toStoreRows: ${sigma.length} weights for ${credits.length} segments`);
  const rows: CreditRow[] = [];
  if (values) rows.push({ exitPoint: 0, method, value: values[0], credit: null, sigma: null });
  credits.forEach((credit, i) => {
    rows.push({ exitPoint: i + 1, method, value: values ? values[i + 1] : null, credit, sigma: sigma ? sigma[i] : null });
  });
  return { rows, cost: result.cost };
}
