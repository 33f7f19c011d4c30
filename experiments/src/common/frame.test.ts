import { groupRows } from './frame';

describe('groupRows', () => {
  const rows = [
    { g: 'b', k: 2, x: 1 },
    { g: 'a', k: 1, x: NaN },
    { g: 'b', k: 1, x: 3 },
    { g: 'a', k: 1, x: 2 },
  ];

  it('groups in order of first appearance, members in input order, NaN kept', () => {
    const groups = groupRows(rows, ['g']);
    expect(groups.map((g) => g.key)).toEqual([{ g: 'b' }, { g: 'a' }]);
    expect(groups[0].rows.map((r) => r.x)).toEqual([1, 3]);
    expect(groups[1].rows.map((r) => r.x)).toEqual([NaN, 2]);
  });

  it('orders by the keys on request', () => {
    const groups = groupRows(rows, ['g', 'k'], 'keys');
    expect(groups.map((g) => `${g.key.g}${g.key.k}:${g.rows.length}`)).toEqual(['a1:2', 'b1:1', 'b2:1']);
    expect(groupRows([], ['g'])).toEqual([]);
  });
});
