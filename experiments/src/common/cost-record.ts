import type { EstimatorResult } from '@rred/estimators';
import type { CostRecord } from '@rred/results-store';

/** An estimator call's cost as the store keeps it, under the method name it is stored as. */
export function costRecord(method: string, result: EstimatorResult<unknown>): CostRecord {
  const c = result.cost;
  return {
    method,
    tokensForwarded: c.tokensForwarded,
    tokensGenerated: c.tokensGenerated,
    forwardPasses: c.forwardPasses,
    wallMs: c.wallMs,
  };
}
