import { verigateGroupAdvantages } from './verigate';

describe('verigateGroupAdvantages', () => {
  it('future-cumulates step scores and normalizes them over the group (hand-computed)', () => {
    // trace 0: steps [0,1) and [1,3) scored 0.5 and −1 → F = [−0.5, −1]; trace 1: one step [0,2) scored 2 → F = [2]
    // pool [−0.5, −1, 2]: mean 1/6, sample SD √(31/12) ≈ 1.6073
    const rows = verigateGroupAdvantages([{ ends: [1, 3], scores: [0.5, -1] }, { ends: [2], scores: [2] }, null], [3, 2, 4]);
    const sd = Math.sqrt(31 / 12) + 1e-4;
    expect(rows[0][0]).toBeCloseTo((-0.5 - 1 / 6) / sd, 12);
    expect(rows[0][0]).toBeCloseTo(-0.41476, 4);
    expect(rows[0][1]).toBeCloseTo(-0.72583, 4);
    expect(rows[0][2]).toBe(rows[0][1]);
    expect(rows[1]).toEqual([rows[1][0], rows[1][0]]);
    expect(rows[1][0]).toBeCloseTo(1.14059, 4);
    expect(rows[2]).toEqual([0, 0, 0, 0]); // an unscored trace gets no gradient, as in GRPO
  });
  it('gives 0 without spread and rejects malformed steps', () => {
    expect(verigateGroupAdvantages([{ ends: [2], scores: [1] }], [2])).toEqual([[0, 0]]);
    expect(() => verigateGroupAdvantages([{ ends: [1], scores: [1] }], [2])).toThrow(/end at 1, its length is 2/);
    expect(() => verigateGroupAdvantages([{ ends: [2, 2], scores: [1, 1] }], [2])).toThrow(/strictly increasing/);
    expect(() => verigateGroupAdvantages([{ ends: [2], scores: [NaN] }], [2])).toThrow(/score 0 of completion 0 is NaN/);
    expect(() => verigateGroupAdvantages([null], [2, 3])).toThrow(/1 score rows for 2 completions/);
  });
});
