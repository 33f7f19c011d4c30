import { sinusoidalTable } from './position-init';

describe('sinusoidalTable', () => {
  it('holds a·sin / a·cos of p / 10000^(i/C) at even / odd columns', () => {
    const a = 0.5;
    const t = sinusoidalTable(3, 4, a); // [3, 4]
    expect(Array.from(t.slice(0, 4))).toEqual([0, a, 0, a]); // p = 0
    expect(t[4 + 0]).toBeCloseTo(a * Math.sin(1), 7); // p = 1, i = 0
    expect(t[4 + 1]).toBeCloseTo(a * Math.cos(1), 7);
    expect(t[8 + 2]).toBeCloseTo(a * Math.sin(2 / 100), 7); // p = 2, i = 2: 10000^(2/4) = 100
    expect(t[8 + 3]).toBeCloseTo(a * Math.cos(2 / 100), 7);
  });

  it('has the norm of N(0, 0.02) embeddings by default', () => {
    const C = 128;
    const t = sinusoidalTable(1, C);
    // every (sin, cos) pair has squared norm a², so ‖row‖ = a·√(C/2) = 0.02·√C
    const row = Array.from(sinusoidalTable(5, C).slice(4 * C, 5 * C));
    expect(Math.hypot(...row)).toBeCloseTo(0.02 * Math.sqrt(C), 6);
    expect(t.length).toBe(C);
  });
});
