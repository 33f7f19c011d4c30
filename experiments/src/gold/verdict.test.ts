import { Rng } from '@rred/core';
import { compareFamily, familyResamples, stressRows, type ScoredMethods } from './verdict';

// 20 traces; signed position's per-trace ρ alternates 0.2 / 0.4 (mean 0.3)
const T = 20;
const sp = Array.from({ length: T }, (_, i) => (i % 2 === 0 ? 0.2 : 0.4));
const shift = (d: number) => sp.map((x) => x + d);

function scored(): ScoredMethods {
  return {
    perTrace: {
      signedPosition: sp,
      'mc.n1': shift(-0.1),
      'mc.n4': shift(0.3),
      // exactly 0.5 above signed position on every trace: yes, with a degenerate interval at +0.5
      'rredcot.any.bestStart.value.prob': shift(0.5),
      // 0.3 below on every trace: worse
      'rredcot.joint.full.both.log': shift(-0.3),
      // ±0.2 around signed position, alternating in step with it: mean difference 0 → undecided
      'rredcot.any.softStart.value.log': sp.map((x, i) => x + (i % 4 < 2 ? 0.2 : -0.2)),
      // the stress arm: the first variant on rewritten references lost 0.3 of its 0.5 lead on every trace
      'rredcot.any.bestStart.value.prob~swap': shift(0.2),
    },
    tokens: {
      signedPosition: 0,
      'mc.n1': 100,
      'mc.n4': 400,
      'rredcot.any.bestStart.value.prob': 200,
      'rredcot.joint.full.both.log': 800,
      'rredcot.any.softStart.value.log': 50,
      'rredcot.any.bestStart.value.prob~swap': 200,
    },
    mcSamples: [1, 4],
    resamples: 400,
    level: 0.95,
  };
}

describe('compareFamily', () => {
  const c = compareFamily(scored(), new Rng(7));

  it('against signed position: yes, worse and undecided, with the mean paired difference', () => {
    const yes = c['rredcot.any.bestStart.value.prob'].vsSignedPosition!;
    expect(yes.verdict).toBe('yes');
    expect(yes.diff).toBeCloseTo(0.5, 12);
    expect(yes.lo).toBeCloseTo(0.5, 12);
    expect(yes.p).toBe(0);
    expect(c['rredcot.joint.full.both.log'].vsSignedPosition!.verdict).toBe('worse');
    const und = c['rredcot.any.softStart.value.log'].vsSignedPosition!;
    expect(und.diff).toBeCloseTo(0, 12);
    expect(und.verdict).toBe('undecided');
    expect(und.lo).toBeLessThan(0);
    expect(und.hi).toBeGreaterThan(0);
    // the baseline is not compared with itself, and the stress arm is not in the family
    expect(c.signedPosition.vsSignedPosition).toBeNull();
    expect(c['rredcot.any.bestStart.value.prob~swap']).toBeUndefined();
  });

  it('Holm over the family: m = 5 methods (all but signed position); levels follow the p order', () => {
    const levels = Object.values(c)
      .map((x) => x.vsSignedPosition?.level)
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => b - a);
    // four p = 0 (the constant shifts, MC included) take the steps 1 − 0.05/5 … 1 − 0.05/2 in input order; the undecided one 1 − 0.05/1
    [1 - 0.05 / 5, 1 - 0.05 / 4, 1 - 0.05 / 3, 1 - 0.05 / 2, 0.95].forEach((l, i) => expect(levels[i]).toBeCloseTo(l, 12));
  });

  it('MC at matched tokens: interpolated per trace in log tokens; below MC(1) the comparison is with MC(1)', () => {
    // 200 tokens is halfway between MC(1) at 100 and MC(4) at 400 in log tokens: MC there = sp + 0.1, n = 2
    const mid = c['rredcot.any.bestStart.value.prob'].vsMcAtCost!;
    expect(mid.n).toBeCloseTo(2, 12);
    expect(mid.range).toBe('within');
    expect(mid.diff).toBeCloseTo(0.4, 12);
    expect(mid.verdict).toBe('yes');
    const below = c['rredcot.any.softStart.value.log'].vsMcAtCost!;
    expect([below.n, below.range]).toEqual([1, 'below']);
    expect(below.diff).toBeCloseTo(0.1, 12);
    const above = c['rredcot.joint.full.both.log'].vsMcAtCost!;
    expect([above.n, above.range]).toEqual([4, 'above']);
    expect(above.diff).toBeCloseTo(-0.6, 12);
    expect(above.verdict).toBe('worse');
    // MC itself is not compared with MC; the free baseline is compared with MC(1)
    expect(c['mc.n4'].vsMcAtCost).toBeNull();
    expect(c.signedPosition.vsMcAtCost!.diff).toBeCloseTo(0.1, 12);
  });
});

describe('stressRows', () => {
  it('each rewritten variant against its canonical twin, and how much of its lead over signed position it keeps', () => {
    const rows = stressRows(scored(), new Rng(7));
    expect(rows.map((r) => r.method)).toEqual(['rredcot.any.bestStart.value.prob~swap']);
    const [r] = rows;
    expect(r.canonical).toBe('rredcot.any.bestStart.value.prob');
    expect([r.rewrite, r.refs, r.oracle]).toEqual(['swap', 'dataset', false]);
    expect(r.rho).toBeCloseTo(0.5, 12);
    expect(r.canonicalRho).toBeCloseTo(0.8, 12);
    expect(r.change.diff).toBeCloseTo(-0.3, 12);
    expect(r.change.verdict).toBe('worse');
    expect(r.leadCanonical).toBeCloseTo(0.5, 12);
    expect(r.leadRewritten).toBeCloseTo(0.2, 12);
    expect(r.survives).toBeCloseTo(0.4, 12);
  });
});

describe('familyResamples', () => {
  it("at least 20·m/α resamples, so Holm's first step has 10 replicates beyond its α/(2m) tail", () => {
    // m = 60, α = 0.05: 20·60/0.05 = 24000; the α/(2m) = 1/2400 tail of 24000 replicates holds 10
    expect(familyResamples(60, 0.05, 1000)).toBe(24000);
    expect(familyResamples(5, 0.05, 30000)).toBe(30000);
    const c = compareFamily(scored(), new Rng(7))['rredcot.joint.full.both.log'];
    // against signed position: the 5 methods but signed position (2000); against MC: the 4 that are not MC (1600)
    expect([c.vsSignedPosition!.resamples, c.vsMcAtCost!.resamples]).toEqual([2000, 1600]);
  });
});
