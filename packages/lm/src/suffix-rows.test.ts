import { MASKED } from './layers';
import { packSuffixRows, rowTensors } from './suffix-rows';

describe('packSuffixRows', () => {
  const jobs = [
    [{ exitAt: 2, suffix: [1, 2, 3] }, { exitAt: 3, suffix: [] }, { exitAt: 3, suffix: [4, 5] }, { exitAt: 1, suffix: [6, 7, 8, 9, 1, 2] }],
    [{ exitAt: 1, suffix: [5] }],
  ];

  it('packs requests of one job in order up to rowTokens, never mixes jobs, skips empty suffixes and sorts rows longest first', () => {
    const rows = packSuffixRows(jobs, 5);
    expect(rows.map((r) => [r.job, r.length, r.placed.map((p) => [p.request, p.offset, p.length])])).toEqual([
      [0, 6, [[3, 0, 6]]], // longer than rowTokens: a row of its own
      [0, 5, [[0, 0, 3], [2, 3, 2]]],
      [1, 1, [[0, 0, 1]]],
    ]);
  });

  it('puts each request in its own row when rowTokens is 1', () => {
    expect(packSuffixRows(jobs, 1).map((r) => r.placed.length)).toEqual([1, 1, 1, 1]);
  });
});

describe('rowTensors', () => {
  it('lets each packed token see its prefix and its own earlier tokens only, and predict its next token', () => {
    const jobs = [[{ exitAt: 2, suffix: [7, 8] }, { exitAt: 3, suffix: [9] }]];
    const rows = packSuffixRows(jobs, 8);
    const cached = 4;
    const width = 4; // one padding slot
    const { tokens, positions, targets, mask } = rowTensors(rows, jobs, width, cached, 6);
    expect([...tokens]).toEqual([7, 8, 9, 0]);
    expect([...positions]).toEqual([2, 3, 3, 0]);
    expect([...targets]).toEqual([8, 0, 0, 0]);
    const visible = (slot: number) => [...mask.slice(slot * 8, slot * 8 + 8)].map((m) => (m === 0 ? 1 : m === MASKED ? 0 : NaN));
    //                        cached 0..3   row slots 0..3
    expect(visible(0)).toEqual([1, 1, 0, 0, 1, 0, 0, 0]);
    expect(visible(1)).toEqual([1, 1, 0, 0, 1, 1, 0, 0]);
    expect(visible(2)).toEqual([1, 1, 1, 0, 0, 0, 1, 0]); // second request: not its neighbour's tokens
    expect(visible(3)).toEqual([1, 0, 0, 0, 0, 0, 0, 0]); // padding sees one position, so softmax stays finite
  });

  it('clamps positions past the context to its last position', () => {
    const jobs = [[{ exitAt: 5, suffix: [1, 1, 1] }]];
    expect([...rowTensors(packSuffixRows(jobs, 8), jobs, 3, 5, 6).positions]).toEqual([5, 5, 5]);
  });
});
