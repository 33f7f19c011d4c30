import { toStoreRows } from './store-rows';
import type { EstimatorResult } from './types';

const cost = { tokensForwarded: 10, tokensGenerated: 0, forwardPasses: 1, wallMs: 3 };

describe('toStoreRows', () => {
  it('writes exit point 0 plus one row per segment for value methods', () => {
    const res: EstimatorResult = { method: 'rredcot', credits: [0.5, -0.2], values: [0.1, 0.2, 0.15], sigma: [0.7, -0.3], extra: {}, cost };
    const { rows, cost: c } = toStoreRows(res);
    expect(rows).toEqual([
      { exitPoint: 0, method: 'rredcot', value: 0.1, credit: null, sigma: null },
      { exitPoint: 1, method: 'rredcot', value: 0.2, credit: 0.5, sigma: 0.7 },
      { exitPoint: 2, method: 'rredcot', value: 0.15, credit: -0.2, sigma: -0.3 },
    ]);
    expect(c).toBe(cost);
  });
  it('writes segments only for attribution methods and accepts a method label', () => {
    const res: EstimatorResult = { method: 'loo', credits: [1, NaN], extra: {}, cost };
    const { rows } = toStoreRows(res, 'loo-noanswer');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({ exitPoint: 2, method: 'loo-noanswer', value: null, credit: NaN, sigma: null });
  });
  it('rejects inconsistent lengths', () => {
    expect(() => toStoreRows({ method: 'mc', credits: [1], values: [1], extra: {}, cost })).toThrow(/expected K\+1/);
  });
});
