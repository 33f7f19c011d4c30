import type { ContinuationRecord } from '@rred/estimators';
import { continuationRecords, continuationRows } from './mc-records';

describe('MC records in the store', () => {
  it('round-trip through continuation rows (sample index per exit point, order restored)', () => {
    const records: ContinuationRecord[] = [];
    [0, 4, 9].forEach((offset, k) => {
      for (let j = 0; j < 3; j++) {
        const truncated = j === 2 && k === 1;
        const utility = truncated ? 0 : (j + k) % 2;
        records.push({
          exitPoint: k,
          offset,
          limit: 50 - offset,
          length: truncated ? 50 - offset : 10 + j,
          truncated,
          utility,
          correct: utility > 0,
        });
      }
    });
    const rows = continuationRows(records);
    expect(rows.map((r) => [r.exitPoint, r.sample])).toEqual([0, 1, 2].flatMap((k) => [0, 1, 2].map((j) => [k, j])));
    expect(rows[4]).toEqual({ exitPoint: 1, sample: 1, offset: 4, limit: 46, length: 11, truncated: false, utility: 0 });
    // rows may come back in any order: shuffle them deterministically
    const shuffled = rows
      .map((r, i) => ({ r, key: (i * 7919) % rows.length }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.r);
    expect(continuationRecords(shuffled)).toEqual(records);
  });
});
