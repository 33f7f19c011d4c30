import { MASKED } from './layers';
import { packedSlots, packRows, packSuffixRows, sequenceRowTensors, suffixRowTensors } from './suffix-rows';

/** 1 where the mask lets slot `slot` see a position, 0 where it hides it. */
const visible = (mask: Float32Array, span: number, slot: number) =>
  [...mask.slice(slot * span, (slot + 1) * span)].map((m) => (m === 0 ? 1 : m === MASKED ? 0 : NaN));

describe('packRows', () => {
  it('packs first-fit decreasing, skips empty items, gives an oversized item its own row and sorts rows longest first', () => {
    const items = [2, 4, 3, 1, 0, 7].map((length, request) => ({ job: 0, request, length }));
    const rows = packRows(items, 5);
    expect(rows.map((r) => r.placed.map((p) => [p.request, p.offset]))).toEqual([
      [[5, 0]], // 7 > capacity: alone
      [
        [1, 0],
        [3, 4],
      ], // 4 then 1
      [
        [2, 0],
        [0, 3],
      ], // 3 then 2
    ]);
    expect(rows.map((r) => r.length)).toEqual([7, 5, 5]);
  });
});

describe('packedSlots', () => {
  it('lists the real slots row by row, maps every slot back to its token (padding to token 0) and spans each row', () => {
    const rows = packRows(
      [3, 1, 2].map((length, request) => ({ job: 0, request, length })),
      3,
    ); // rows: [req 0 (3)], [req 2 (2), req 1 (1)] — both full at width 3
    const narrow = [rows[0], { length: 2, placed: [rows[1].placed[0]] }]; // a second row with one padding slot
    const { toPacked, toRows, spans } = packedSlots(narrow, 3);
    expect(Array.from(toPacked)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(spans)).toEqual([0, 3, 3, 2]); // row 0: tokens 0..2; row 1: tokens 3..4
    expect(Array.from(toRows)).toEqual([0, 1, 2, 3, 4, 0]);
    narrow.forEach((row, r) => row.placed.forEach((p) => expect(toRows[r * 3 + p.offset]).toBe(toPacked.indexOf(r * 3 + p.offset))));
  });
});

describe('packSuffixRows', () => {
  it('never mixes jobs in a row, and gives each request its own row when rowTokens is 1', () => {
    const jobs = [
      [
        { exitAt: 2, suffix: [1, 2, 3] },
        { exitAt: 3, suffix: [] },
        { exitAt: 3, suffix: [4] },
      ],
      [{ exitAt: 1, suffix: [5] }],
    ];
    expect(packSuffixRows(jobs, 8).map((r) => r.placed.map((p) => [p.job, p.request]))).toEqual([
      [
        [0, 0],
        [0, 2],
      ],
      [[1, 0]],
    ]);
    expect(packSuffixRows(jobs, 1).map((r) => r.placed.length)).toEqual([1, 1, 1]);
  });
});

describe('sequenceRowTensors', () => {
  it('lays whole sequences side by side at positions 0.., each attending causally to itself only', () => {
    const sequences = [
      [5, 6, 7],
      [8, 9],
    ];
    const rows = packRows(
      sequences.map((s, job) => ({ job, request: -1, length: s.length })),
      8,
    );
    const width = 6; // one padding slot
    const { tokens, positions, mask } = sequenceRowTensors(rows, sequences, width, 16);
    expect([...tokens]).toEqual([5, 6, 7, 8, 9, 0]);
    expect([...positions]).toEqual([0, 1, 2, 0, 1, 0]);
    expect(visible(mask, 6, 2)).toEqual([1, 1, 1, 0, 0, 0]);
    expect(visible(mask, 6, 3)).toEqual([0, 0, 0, 1, 0, 0]);
    expect(visible(mask, 6, 4)).toEqual([0, 0, 0, 1, 1, 0]);
    expect(visible(mask, 6, 5)).toEqual([1, 0, 0, 0, 0, 0]); // padding sees one slot, so softmax stays finite
  });
});

describe('suffixRowTensors', () => {
  it('lets each packed token see its own sequence’s prefix and its own earlier tokens only, and predict its next token', () => {
    const jobs = [
      [
        { exitAt: 2, suffix: [7, 8] },
        { exitAt: 3, suffix: [9] },
      ],
    ];
    const rows = packSuffixRows(jobs, 8);
    const cached = 5; // job 0's sequence sits at cached slots 1..4 (another sequence before it)
    const width = 4; // one padding slot
    const { tokens, positions, targets, mask } = suffixRowTensors(rows, jobs, [{ row: 0, offset: 1 }], width, cached, 16);
    expect([...tokens]).toEqual([7, 8, 9, 0]);
    expect([...positions]).toEqual([2, 3, 3, 0]);
    expect([...targets]).toEqual([8, 0, 0, 0]);
    //                                       cached 0..4      row slots 0..3
    expect(visible(mask, 9, 0)).toEqual([0, 1, 1, 0, 0, 1, 0, 0, 0]);
    expect(visible(mask, 9, 1)).toEqual([0, 1, 1, 0, 0, 1, 1, 0, 0]);
    expect(visible(mask, 9, 2)).toEqual([0, 1, 1, 1, 0, 0, 0, 1, 0]); // second request: not its neighbour's tokens
    expect(visible(mask, 9, 3)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('clamps positions past the context to its last position', () => {
    const jobs = [[{ exitAt: 5, suffix: [1, 1, 1] }]];
    expect([...suffixRowTensors(packSuffixRows(jobs, 8), jobs, [{ row: 0, offset: 0 }], 3, 5, 6).positions]).toEqual([5, 5, 5]);
  });
});
