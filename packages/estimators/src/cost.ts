/** Accumulates the model cost of an estimator call and stamps its wall time. */
import type { ComputeCost } from '@rred/lm';
import type { EstimatorCost } from './types';

export class CostMeter {
  private readonly started = Date.now();
  private readonly total: ComputeCost = { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 };

  add(cost: ComputeCost): void {
    this.total.tokensForwarded += cost.tokensForwarded;
    this.total.tokensGenerated += cost.tokensGenerated;
    this.total.forwardPasses += cost.forwardPasses;
  }

  finish(): EstimatorCost {
    return { ...this.total, wallMs: Date.now() - this.started };
  }
}
