import { Rng } from '@rred/core';
import { aggregate, type ProblemSamples } from './aggregate';

const samples: ProblemSamples[] = [
  { problemId: 'p1', rewards: [1, 1, 0, 0], answers: ['4', '4', '2', '2'] },
  { problemId: 'p2', rewards: [0, 0, 0, 0], answers: ['1', null, '3', '1'] },
  { problemId: 'p3', rewards: [0, 1, 1, 1], answers: ['8', '7', '7', '7'] },
];

describe('aggregate', () => {
  it('averages per-problem estimates computed by hand', () => {
    const m = aggregate(samples, { k: 2, interval: 'wilson', level: 0.95, resamples: 100 }, new Rng(1));
    // avg@2: p1 (1+1)/2 = 1, p2 0, p3 (0+1)/2 = 0.5 → 0.5
    expect(m.avgAtK.value).toBeCloseTo(0.5, 12);
    // pass@2 from n=4: p1 1 − C(2,2)/C(4,2) = 5/6, p2 0, p3 1 (n−c = 1 < 2) → (5/6 + 1)/3
    expect(m.passAtK.value).toBeCloseTo((5 / 6 + 1) / 3, 12);
    // maj@2: p1 '4' correct → 1, p2 '1' wrong → 0, p3 tie 8/7, '8' first → 0
    expect(m.majAtK.value).toBeCloseTo(1 / 3, 12);
    expect(m.avgAtK.interval.method).toBe('wilson');
    expect(m.avgAtK.interval.lower).toBeLessThan(0.5);
    expect(m.avgAtK.interval.upper).toBeGreaterThan(0.5);
    expect(m.samplesPerProblem).toBe(4);
  });

  it('bootstraps reproducibly', () => {
    const opts = { k: 4, interval: 'bootstrap' as const, level: 0.9, resamples: 500 };
    const a = aggregate(samples, opts, new Rng(7));
    expect(aggregate(samples, opts, new Rng(7))).toEqual(a);
    expect(a.avgAtK.value).toBeCloseTo((0.5 + 0 + 0.75) / 3, 12);
    expect(a.avgAtK.interval.lower).toBeLessThanOrEqual(a.avgAtK.value);
  });
});
