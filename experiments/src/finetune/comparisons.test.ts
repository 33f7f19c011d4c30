import { compareArms, comparisonPairs, pairedTP } from './comparisons';

describe('finetune comparisons', () => {
  it('pairs every arm with grpo and rredcot with each control and the oracle-aligned arm', () => {
    const pairs = comparisonPairs(['grpo', 'rredcot', 'rredcot-oracle-aligned', 'sigma-shuffle', 'signed-position', 'grpo-ref-sft']).map(
      (p) => `${p.a}-${p.b}`,
    );
    expect(pairs).toEqual([
      'rredcot-grpo',
      'rredcot-oracle-aligned-grpo',
      'sigma-shuffle-grpo',
      'signed-position-grpo',
      'grpo-ref-sft-grpo',
      'rredcot-sigma-shuffle',
      'rredcot-signed-position',
      'rredcot-grpo-ref-sft',
      'rredcot-oracle-aligned-rredcot',
    ]);
    expect(comparisonPairs(['rredcot', 'sigma-shuffle']).map((p) => `${p.a}-${p.b}`)).toEqual(['rredcot-sigma-shuffle']);
  });
  it("gives the paired t test's two-sided p (jStat: t = 3.873, df 3 → 0.030466; df 4 → 0.072855)", () => {
    expect(pairedTP([1, 2, 3, 4])).toBeCloseTo(0.030466291662, 9);
    expect(pairedTP([0.01, 0.03, -0.005, 0.02, 0.015])).toBeCloseTo(0.07285505961, 9);
    expect(pairedTP([1])).toBeNaN();
    expect(pairedTP([0.5, 0.5])).toBe(0);
    expect(pairedTP([0, 0, 0])).toBe(1);
  });
  it('applies Holm over the whole family: a comparison that is significant alone can be undecided in the table', () => {
    // embedded: rredcot − grpo = [0.03, 0.02, 0.025, 0.035, 0.03] (p tiny); assumptionsMet: [0.01, 0.03, −0.005, 0.02, 0.015] (p = 0.073);
    // a third, noisy comparison with p ≈ 0.03
    const values: Record<string, Record<string, number[]>> = {
      embedded: { grpo: [0.5, 0.5, 0.5, 0.5, 0.5], rredcot: [0.53, 0.52, 0.525, 0.535, 0.53] },
      assumptionsMet: {
        grpo: [0.4, 0.4, 0.4, 0.4, 0.4, 0.4],
        rredcot: [0.41, 0.43, 0.395, 0.42, 0.415],
        'sigma-shuffle': [0.401, 0.402, 0.403, 0.404, 0.4, 0.4],
      },
    };
    const beds = [
      { name: 'embedded', methods: ['grpo', 'rredcot'] },
      { name: 'assumptionsMet', methods: ['grpo', 'rredcot', 'sigma-shuffle'] },
    ];
    const seedsOf = (bed: string, m: string) => values[bed][m].map((_, i) => i + 1);
    const c = compareArms(beds, seedsOf, (bed, m, s) => values[bed][m][s - 1], 0.95);
    expect(c.map((x) => `${x.testBed}:${x.a}-${x.b}`)).toEqual([
      'embedded:rredcot-grpo',
      'assumptionsMet:rredcot-grpo',
      'assumptionsMet:sigma-shuffle-grpo',
      'assumptionsMet:rredcot-sigma-shuffle',
    ]);
    const [emb, am] = c;
    expect(emb.seeds).toEqual([1, 2, 3, 4, 5]);
    expect(emb.diff).toBeCloseTo(0.028, 12);
    expect(emb.supported).toBe(true);
    expect(emb.level).toBeCloseTo(1 - 0.05 / 4, 12); // the smallest p: Holm's first step, α/m
    expect(emb.lo).toBeGreaterThan(0);
    expect(am.p).toBeCloseTo(0.072855, 5);
    expect(am.supported).toBe(false);
    expect(am.lo).toBeLessThan(0);
    // seeds both ran: rredcot has 5 on assumptionsMet, grpo 6
    expect(am.seeds).toEqual([1, 2, 3, 4, 5]);
    // every adjusted p is at least the raw p, and no step level exceeds 1 − α/m … 1 − α
    c.forEach((x) => {
      expect(x.adjustedP).toBeGreaterThanOrEqual(x.p);
      expect(x.level).toBeGreaterThanOrEqual(0.95);
    });
  });
});
