import { Rng } from '../rng';
import { localizationAuc, localizationTop1 } from './localization';

// A constructed case with a known answer. Lower credit = more blame.
const traces = [
  { credits: [0.1, -0.5, 0.2], errorSegment: 1 }, // argmin = 1 = error → 1
  { credits: [-0.3, -0.3, 0.4, 0.0], errorSegment: 0 }, // tied minima {0, 1}, error among them → 1/2
  { credits: [0.2, 0.1, -0.1], errorSegment: 0 }, // argmin = 2 → 0
  { credits: [0, 0], errorSegment: 1 }, // all tied → 1/2
];

describe('localizationTop1', () => {
  it('share of traces whose most negative credit is the error segment, ties 1/#tied; chance = mean 1/K', () => {
    const r = localizationTop1(traces, new Rng(1), { resamples: 500 });
    expect(r.value).toBeCloseTo((1 + 0.5 + 0 + 0.5) / 4, 12);
    expect(r.chance).toBeCloseTo((1 / 3 + 1 / 4 + 1 / 3 + 1 / 2) / 4, 12); // 0.3541…
    expect(r.traces).toBe(4);
    // the bootstrap over traces: all four draws one trace has p 1/256 < 2.5%, so the bounds lie strictly inside [0, 1]
    expect(r.lo).toBeGreaterThanOrEqual(0);
    expect(r.lo).toBeLessThan(r.value);
    expect(r.hi).toBeGreaterThan(r.value);
    expect(r.hi).toBeLessThanOrEqual(1);
  });

  it('a tie the error segment is not part of scores 0; perfect and useless methods', () => {
    expect(localizationTop1([{ credits: [-1, -1, 0], errorSegment: 2 }], new Rng(1)).value).toBe(0);
    const perfect = traces.map((t) => ({ ...t, credits: t.credits.map((_, k) => (k === t.errorSegment ? -1 : k)) }));
    expect(localizationTop1(perfect, new Rng(1), { resamples: 100 })).toMatchObject({ value: 1, lo: 1, hi: 1 });
  });

  it('NaN credits → NaN; no traces → NaN; an error segment outside the trace throws', () => {
    expect(localizationTop1([{ credits: [NaN, 1, 2], errorSegment: 0 }, ...traces], new Rng(1)).value).toBeNaN();
    const none = localizationTop1([], new Rng(1));
    expect(none.value).toBeNaN();
    expect(none.chance).toBeNaN();
    expect(() => localizationTop1([{ credits: [1, 2], errorSegment: 2 }], new Rng(1))).toThrow(
      /trace 0: errorSegment must be an integer in \[0, 2\), got 2/,
    );
  });
});

describe('localizationAuc', () => {
  it('P(error credit < non-error credit), ties ½, pooled over segments: by hand', () => {
    // error credits −0.5, −0.3, 0.2, 0; non-error 0.1, 0.2 | −0.3, 0.4, 0.0 | 0.1, −0.1 | 0 (8): 32 pairs
    // −0.5 beats 8; −0.3 beats 7 and ties 1 (7.5); 0.2 beats 1 (0.4) and ties 1 (1.5); 0 beats 4, ties 2 (5)
    expect(localizationAuc(traces)).toBeCloseTo((8 + 7.5 + 1.5 + 5) / 32, 12); // 0.6875
  });

  it('1 when the error segment always has the lowest credit, 0 when always the highest', () => {
    const best = traces.map((t) => ({ ...t, credits: t.credits.map((_, k) => (k === t.errorSegment ? -10 : k)) }));
    expect(localizationAuc(best)).toBe(1);
    const worst = traces.map((t) => ({ ...t, credits: t.credits.map((_, k) => (k === t.errorSegment ? 10 : k)) }));
    expect(localizationAuc(worst)).toBe(0);
  });

  it('NaN when a class is empty or a credit is NaN', () => {
    expect(localizationAuc([])).toBeNaN();
    expect(localizationAuc([{ credits: [3], errorSegment: 0 }])).toBeNaN();
    expect(localizationAuc([{ credits: [0, NaN], errorSegment: 0 }])).toBeNaN();
  });
});
