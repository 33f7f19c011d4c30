import type { EstimatorInputs } from './types';
import { lineStarts, logValue, valueRequests } from './value-term';

const NL = 9;
const tokens = { endThink: 90, eos: 91, newline: NL };
const refA = { solution: [1, 2, NL, 3, 4, NL, 5], answer: [7] };
const refB = { solution: [3, 4, NL, 1, 2, NL, 5], answer: [7] };
const throwingAlignment = (): number[] => {
  throw new Error('the task alignment was asked for');
};
const inputs: EstimatorInputs = { tokens, alignment: throwingAlignment };

describe('value term (Eq. 9)', () => {
  it('splits a reference at its own line breaks, with the empty rest last', () => {
    expect(lineStarts([1, 2, NL, 3, NL, 4], NL)).toEqual([0, 3, 5, 6]);
    expect(lineStarts([1, NL], NL)).toEqual([0, 2]);
    expect(lineStarts([], NL)).toEqual([0]);
  });

  it('start rules score every line start of every reference, and never ask the task for an alignment', () => {
    for (const rule of ['bestStart', 'softStart'] as const) {
      const req = valueRequests([refA, refB], [1, 2, NL], inputs, rule, 'literal');
      expect(req.suffixes).toEqual([
        [1, 2, NL, 3, 4, NL, 5, 90, 7, 91],
        [3, 4, NL, 5, 90, 7, 91],
        [5, 90, 7, 91],
        [90, 7, 91],
        [3, 4, NL, 1, 2, NL, 5, 90, 7, 91],
        [1, 2, NL, 5, 90, 7, 91],
        [5, 90, 7, 91],
        [90, 7, 91],
      ]);
      expect(req.group).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    }
    expect(valueRequests([refA], [], inputs, 'full', 'literal').suffixes).toEqual([[1, 2, NL, 3, 4, NL, 5, 90, 7, 91]]);
  });

  it("'remaining' asks the alignment, and refuses without one", () => {
    expect(() => valueRequests([refA], [1, 2, NL], inputs, 'remaining', 'literal')).toThrow('the task alignment was asked for');
    expect(() => valueRequests([refA], [1, 2, NL], { tokens }, 'remaining', 'literal')).toThrow(/needs inputs.alignment/);
    const rest = valueRequests([refA], [1, 2, NL], { tokens, alignment: (_t, s) => s.slice(3) }, 'remaining', 'literal');
    expect(rest.suffixes).toEqual([[3, 4, NL, 5, 90, 7, 91]]);
  });

  it('start rules need the line-break token', () => {
    expect(() => valueRequests([refA], [], { tokens: { endThink: 90, eos: 91 } }, 'bestStart', 'sum')).toThrow(/needs tokens.newline/);
  });

  it('combines max (bestStart) or the uniform mean (softStart) inside a reference, then pools over references', () => {
    const req = { suffixes: [[], [], [], []], group: [0, 0, 1, 1], groupCount: 2 };
    const lp = [[Math.log(0.1)], [Math.log(0.05), Math.log(0.5)], [Math.log(0.2)], [Math.log(0.4)]];
    // reference 0: starts score 0.1 and 0.025; reference 1: 0.2 and 0.4
    const best = logValue(lp, req, 'bestStart', 'literal', 2);
    expect(Math.exp(best)).toBeCloseTo((0.1 + 0.4) / 2, 12);
    const soft = logValue(lp, req, 'softStart', 'literal', 2);
    expect(Math.exp(soft)).toBeCloseTo(((0.1 + 0.025) / 2 + (0.2 + 0.4) / 2) / 2, 12);
    expect(Math.exp(logValue(lp, req, 'softStart', 'sum', 2))).toBeCloseTo((0.1 + 0.025) / 2 + (0.2 + 0.4) / 2, 12);
  });

  it("keeps 'full' bit-identical to the mean over references (one suffix per group)", () => {
    const req = { suffixes: [[], []], group: [0, 1], groupCount: 2 };
    const lp = [[-1.25, -0.5], [-3.5]];
    expect(logValue(lp, req, 'full', 'literal', 2)).toBe(Math.log(Math.exp(-1.75) + Math.exp(-3.5)) - Math.log(2));
  });

  it('propagates NaN', () => {
    const req = { suffixes: [[], []], group: [0, 0], groupCount: 1 };
    expect(logValue([[NaN], [-1]], req, 'bestStart', 'sum', 1)).toBeNaN();
    expect(logValue([[NaN], [-1]], req, 'softStart', 'sum', 1)).toBeNaN();
  });
});
