import { Rng } from '@rred/core';
import { firstReach, meanCurve, reachInterval, sampleEfficiency, type CurvePoint } from './curves';

const curve = (pairs: [number, number, number][]): CurvePoint[] => pairs.map(([step, avg, trainSeconds]) => ({ step, avg, trainSeconds }));

describe('finetune learning curves', () => {
  it('meanCurve averages seeds on the steps they share', () => {
    const a = curve([
      [0, 0.1, 0],
      [5, 0.3, 10],
      [10, 0.5, 20],
    ]);
    const b = curve([
      [0, 0.1, 0],
      [5, 0.2, 14],
      [10, 0.4, 30],
    ]);
    const c = curve([
      [0, 0.1, 0],
      [10, 0.6, 25],
    ]); // missing step 5 (e.g. a different validation.every)
    expect(meanCurve([a, b])).toEqual(
      curve([
        [0, 0.1, 0],
        [5, 0.25, 12],
        [10, 0.45, 25],
      ]),
    );
    const m = meanCurve([a, b, c]);
    expect(m.map((p) => p.step)).toEqual([0, 10]);
    expect(m[1].avg).toBeCloseTo(0.5, 12);
    expect(meanCurve([])).toEqual([]);
  });

  it('firstReach is the first step at or above the target', () => {
    const a = curve([
      [10, 0.5, 20],
      [0, 0.1, 0],
      [5, 0.5, 10],
    ]);
    expect(firstReach(a, 0.5)?.step).toBe(5);
    expect(firstReach(a, 0.51)).toBeNull();
    expect(firstReach(a, NaN)).toBeNull();
  });

  it("sample efficiency: GRPO steps (and seconds) to its own final accuracy over each method's", () => {
    const grpo = curve([
      [0, 0.1, 0],
      [10, 0.2, 10],
      [20, 0.3, 20],
      [30, 0.4, 30],
      [40, 0.4, 40],
    ]);
    // rredcot gets to 0.4 at step 20 but is slower per step
    const rredcot = curve([
      [0, 0.1, 0],
      [10, 0.3, 15],
      [20, 0.45, 30],
      [30, 0.5, 45],
      [40, 0.5, 60],
    ]);
    const never = curve([
      [0, 0.1, 0],
      [40, 0.35, 40],
    ]);
    const rows = sampleEfficiency({ grpo, rredcot, never });
    const by = Object.fromEntries(rows.map((r) => [r.method, r]));
    expect(rows.every((r) => r.target === 0.4)).toBe(true);
    // GRPO first reaches its final 0.4 at step 30 (not 40): its own ratio is 1
    expect(by.grpo).toMatchObject({ steps: 30, seconds: 30, stepRatio: 1, timeRatio: 1 });
    expect(by.rredcot).toMatchObject({ steps: 20, seconds: 30 });
    expect(by.rredcot.stepRatio).toBeCloseTo(1.5, 12);
    expect(by.rredcot.timeRatio).toBeCloseTo(1, 12);
    expect(by.never).toMatchObject({ steps: null, seconds: null, stepRatio: null, timeRatio: null });
  });

  it('no ratio when GRPO never improved on the start (target reached at step 0) or is absent', () => {
    const flat = curve([
      [0, 0.3, 0],
      [10, 0.2, 10],
      [20, 0.3, 20],
    ]);
    const up = curve([
      [0, 0.3, 0],
      [10, 0.5, 12],
    ]);
    const rows = sampleEfficiency({ grpo: flat, up });
    expect(rows.find((r) => r.method === 'up')).toMatchObject({ steps: 0, stepRatio: null });
    expect(sampleEfficiency({ up })).toEqual([]);
  });

  it("target 'max': GRPO's best seed-mean point, defined even when GRPO ends below its start", () => {
    const grpo = curve([
      [0, 0.3, 0],
      [10, 0.35, 10],
      [20, 0.25, 20],
    ]);
    const own = curve([
      [0, 0.3, 0],
      [5, 0.36, 4],
      [20, 0.5, 16],
    ]);
    const rows = sampleEfficiency({ grpo, own }, 'grpo', 'max');
    expect(rows[0]).toMatchObject({ target: 0.35, steps: 10, stepRatio: 1 });
    expect(rows[1]).toMatchObject({ target: 0.35, steps: 5, seconds: 4 });
    expect(rows[1].stepRatio).toBeCloseTo(2, 12);
    expect(rows[1].timeRatio).toBeCloseTo(2.5, 12);
    expect(sampleEfficiency({ grpo, own }, 'grpo', 'final')[1].stepRatio).toBeNull();
  });
});

describe('reachInterval', () => {
  it('bootstraps the step and seconds at which the seed-mean curve first reaches a target; +∞ when resamples never do', () => {
    const seeds = [
      curve([
        [0, 0.1, 0],
        [10, 0.3, 10],
        [20, 0.5, 20],
      ]),
      curve([
        [0, 0.1, 0],
        [10, 0.5, 12],
        [20, 0.6, 24],
      ]),
    ];
    // resamples: {a, a} reaches 0.4 at 20, {b, b} and {a, b} at 10
    const r = reachInterval(seeds, 0.4, new Rng(3), 0.95, 400);
    expect(r.steps).toEqual([10, 20]);
    expect(r.seconds[0]).toBeCloseTo(11, 12); // {a, b}: mean seconds (10 + 12) / 2
    expect(r.unreached).toBe(0);
    // a target only one seed reaches: the {a, a} resamples (about a quarter) never get there
    const far = reachInterval(seeds, 0.58, new Rng(3), 0.95, 400);
    expect(far.unreached).toBeGreaterThan(0.15);
    expect(far.steps[1]).toBe(Infinity);
    expect(reachInterval([], 0.4, new Rng(3), 0.95, 10).steps).toEqual([NaN, NaN]);
  });
});
