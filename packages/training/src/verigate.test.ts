import { verigateGroupAdvantages } from './verigate';

describe('verigateGroupAdvantages', () => {
  it('normalizes step scores over the group, then future-cumulates them (the default; hand-computed)', () => {
    // pool of step scores [0.5, −1, 2]: mean 0.5, sample SD 1.5 → p̃ = [0, −1.5, 1.5] / 1.5001
    // trace 0: Σ_{j ≥ k} p̃ = [−0.99993, −0.99993]; trace 1: [0.99993]
    const rows = verigateGroupAdvantages([{ ends: [1, 3], scores: [0.5, -1] }, { ends: [2], scores: [2] }, null], [3, 2, 4]);
    const u = 1.5 / 1.5001;
    expect(rows[0][0]).toBeCloseTo(-u, 12);
    expect(rows[0][0]).toBeCloseTo(-0.99993, 5);
    expect(rows[0][1]).toBeCloseTo(-u, 12);
    expect(rows[0][2]).toBe(rows[0][1]);
    expect(rows[1][0]).toBeCloseTo(u, 12);
    expect(rows[1][1]).toBe(rows[1][0]);
    expect(rows[2]).toEqual([0, 0, 0, 0]);
  });
  it('under cumulate-then-normalize, future-cumulates step scores and normalizes them over the group (hand-computed)', () => {
    // trace 0: steps [0,1) and [1,3) scored 0.5 and −1 → F = [−0.5, −1]; trace 1: one step [0,2) scored 2 → F = [2]
    // pool [−0.5, −1, 2]: mean 1/6, sample SD √(31/12) ≈ 1.6073
    const rows = verigateGroupAdvantages(
      [{ ends: [1, 3], scores: [0.5, -1] }, { ends: [2], scores: [2] }, null],
      [3, 2, 4],
      'cumulate-then-normalize',
    );
    const sd = Math.sqrt(31 / 12) + 1e-4;
    expect(rows[0][0]).toBeCloseTo((-0.5 - 1 / 6) / sd, 12);
    expect(rows[0][0]).toBeCloseTo(-0.41476, 4);
    expect(rows[0][1]).toBeCloseTo(-0.72583, 4);
    expect(rows[0][2]).toBe(rows[0][1]);
    expect(rows[1]).toEqual([rows[1][0], rows[1][0]]);
    expect(rows[1][0]).toBeCloseTo(1.14059, 4);
    expect(rows[2]).toEqual([0, 0, 0, 0]); // an unscored trace gets no gradient, as in GRPO
  });
  it('gives no gradient to a group whose steps all score alike, unless cumulated first (which pushes the last step down)', () => {
    // two traces of two steps, every step scored 1 (an all-correct group under the oracle PRM)
    const steps = [
      { ends: [1, 2], scores: [1, 1] },
      { ends: [2, 3], scores: [1, 1] },
    ];
    expect(verigateGroupAdvantages(steps, [2, 3])).toEqual([
      [0, 0],
      [0, 0, 0],
    ]);
    // F = [2, 1] for both: pool mean 1.5, sample SD √(1/3); the last step (e.g. the answer) gets −0.5 / (0.57735 + 1e-4)
    const literal = verigateGroupAdvantages(steps, [2, 3], 'cumulate-then-normalize');
    expect(literal[0][1]).toBeCloseTo(-0.5 / (Math.sqrt(1 / 3) + 1e-4), 12);
    expect(literal[1][0]).toBeCloseTo(0.5 / (Math.sqrt(1 / 3) + 1e-4), 12);
  });
  it("under 'unit' scale, divides the group's token advantages by their sample SD over the scored tokens, keeping signs and order", () => {
    const steps = [{ ends: [1, 3], scores: [0.5, -1] }, { ends: [2], scores: [2] }, null];
    const raw = verigateGroupAdvantages(steps, [3, 2, 4], 'normalize-then-cumulate', 'none');
    const unit = verigateGroupAdvantages(steps, [3, 2, 4], 'normalize-then-cumulate', 'unit');
    const tokens = [...raw[0], ...raw[1]]; // trace 2 is unscored: its zeros are not among the group's tokens
    const m = tokens.reduce((a, b) => a + b, 0) / tokens.length;
    const sd = Math.sqrt(tokens.reduce((a, x) => a + (x - m) ** 2, 0) / (tokens.length - 1));
    unit.slice(0, 2).forEach((row, i) => row.forEach((x, t) => expect(x).toBeCloseTo(raw[i][t] / (sd + 1e-4), 12)));
    expect(unit[2]).toEqual([0, 0, 0, 0]);
    // a long trace of many positive normalized steps no longer sums to a large advantage
    const long = [
      { ends: [1, 2, 3, 4, 5, 6], scores: [1, 1, 1, 1, 1, 1] },
      { ends: [1, 2, 3, 4, 5, 6], scores: [0, 0, 0, 0, 0, 0] },
    ];
    const big = verigateGroupAdvantages(long, [6, 6], 'normalize-then-cumulate', 'none');
    const scaled = verigateGroupAdvantages(long, [6, 6], 'normalize-then-cumulate', 'unit');
    expect(Math.max(...big[0])).toBeGreaterThan(2.5);
    expect(Math.max(...scaled[0].map(Math.abs), ...scaled[1].map(Math.abs))).toBeLessThan(2);
    expect(scaled[0][0]).toBeGreaterThan(scaled[0][5]); // the order of the cumulated sums is kept
    expect(Math.sign(scaled[1][0])).toBe(-1);
  });
  it('gives 0 without spread and rejects malformed steps', () => {
    expect(verigateGroupAdvantages([{ ends: [2], scores: [1] }], [2])).toEqual([[0, 0]]);
    expect(() => verigateGroupAdvantages([{ ends: [1], scores: [1] }], [2])).toThrow(/end at 1, its length is 2/);
    expect(() => verigateGroupAdvantages([{ ends: [2, 2], scores: [1, 1] }], [2])).toThrow(/strictly increasing/);
    expect(() => verigateGroupAdvantages([{ ends: [2], scores: [NaN] }], [2])).toThrow(/score 0 of completion 0 is NaN/);
    expect(() => verigateGroupAdvantages([null], [2, 3])).toThrow(/1 score rows for 2 completions/);
  });
});
