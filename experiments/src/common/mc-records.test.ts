import type { ContinuationRecord } from '@rred/estimators';
import { decodeContinuations, encodeContinuations } from './mc-records';

describe('MC records in the store', () => {
  it('round-trips through estimate rows (order, truncation, offsets and limits rebuilt from segments)', () => {
    const segments = [{ start: 0, end: 4 }, { start: 4, end: 9 }];
    const records: ContinuationRecord[] = [];
    [0, 4, 9].forEach((offset, k) => {
      for (let j = 0; j < 3; j++) {
        const truncated = j === 2 && k === 1;
        const utility = truncated ? 0 : (j + k) % 2;
        records.push({ exitPoint: k, offset, limit: 50 - offset, length: truncated ? 50 - offset : 10 + j, truncated, utility, correct: utility > 0 });
      }
    });
    const rows = encodeContinuations(records);
    expect(rows).toHaveLength(3 * records.length);
    expect(rows[0]).toEqual({ segment: -1, method: 'mc.sample.00', value: records[0].utility });
    // rows come back from the store in any order: shuffle them deterministically
    const shuffled = rows.map((r, i) => ({ r, key: (i * 7919) % rows.length })).sort((a, b) => a.key - b.key).map((x) => x.r);
    const stored = shuffled.map((r) => ({ ...r, value: r.value ?? null, credit: null, sigma: null }));
    expect(decodeContinuations({ estimates: stored, segments }, { horizon: 'completion', maxNewTokens: 50 })).toEqual(records);
  });

  it('reports a missing field instead of guessing', () => {
    const rows = encodeContinuations([{ exitPoint: 0, offset: 0, limit: 5, length: 3, truncated: false, utility: 1, correct: true }])
      .filter((r) => !r.method.startsWith('mc.length'))
      .map((r) => ({ ...r, value: r.value ?? null, credit: null, sigma: null }));
    expect(() => decodeContinuations({ estimates: rows, segments: [] }, { horizon: 'continuation', maxNewTokens: 5 })).toThrow(/no 'length' row/);
  });
});
