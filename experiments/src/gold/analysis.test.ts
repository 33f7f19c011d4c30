import { goldConfigSchema } from './config';
import { analyzeGold, goldSummaryMetrics, withinAllPerTrace } from './analysis';
import type { GoldData, GoldTrace } from './load';
import { BASELINES } from './methods';

const cost = (method: string, tokens: number) => ({
  method,
  tokensForwarded: tokens,
  tokensGenerated: 0,
  forwardPasses: 1,
  wallMs: tokens / 10,
});

const GOOD = 'rredcot.forced.remaining.both.log';
const FREE = 'rredcot.any.bestStart.value.prob';

/**
 * A trace with V_gold `gold`: GOOD credits = 2·ΔV_gold (an oracle variant), 'loo' = −ΔV_gold, FREE = `free`,
 * 'mc.n20' = ΔV_gold with values = gold; the MC(20) halves agree, the gold halves are `goldHalves` (default: both = gold).
 */
function trace(
  key: string,
  reward: number,
  gold: number[],
  firstError: number | null,
  free: number[],
  goldHalves?: [number[], number[]],
): GoldTrace {
  const d = gold.slice(1).map((v, i) => v - gold[i]);
  const K = d.length;
  const lengths = d.map((_, i) => 3 + ((i * 7) % 4));
  return {
    checkpoint: 'toy',
    key: `toy/${key}`,
    problemId: key,
    reward,
    completion: [],
    segments: [],
    segmentLengths: lengths,
    gold,
    halves: [gold, gold.slice()],
    goldHalves: goldHalves ?? [gold, gold.slice()],
    credits: {
      'mc.n20': d,
      [GOOD]: d.map((x) => 2 * x),
      [FREE]: free,
      loo: d.map((x) => -x),
      ...Object.fromEntries(Object.entries(BASELINES).map(([n, f]) => [n, f(lengths, reward)])),
    },
    values: { 'mc.n20': gold, [GOOD]: gold.map((v) => v * v) },
    costs: { 'mc.n20': cost('mc.n20', 1000 * K), [GOOD]: cost('r', 100), [FREE]: cost('f', 200), loo: cost('loo', 50) },
    firstError,
  };
}

describe('analyzeGold', () => {
  const config = goldConfigSchema.parse({ checkpoints: ['x/toy.ckpt'], mcSamples: [20], analysis: { bootstrapResamples: 50 } });
  // ΔV_gold: a [0.1, −0.5, −0.05, −0.04]; b [−0.2, 0.1, 0.05, −0.25]; c [0.3, 0.1, 0.2, 0.15]; d constant (K = 2)
  const data: GoldData = {
    config,
    checkpoints: ['toy'],
    traces: [
      // FREE on a: constant (says nothing) → 0; on b: a NaN → 0; on c: ranks like ΔV_gold → 1; on d: 0 (no gold spread)
      trace('a', 0, [0.5, 0.6, 0.1, 0.05, 0.01], 2, [1, 1, 1, 1]),
      trace('b', 0, [0.4, 0.2, 0.3, 0.35, 0.1], 1, [NaN, 1, 2, 3]),
      trace(
        'c',
        1,
        [0.2, 0.5, 0.6, 0.8, 0.95],
        null,
        [4, 1, 3, 2],
        [
          [0.2, 0.5, 0.6, 0.8, 0.95],
          // second half: ΔV [0.3, 0.1, 0.15, 0.2] against the first's [0.3, 0.1, 0.2, 0.15]: Spearman 0.8
          [0.2, 0.5, 0.6, 0.75, 0.95],
        ],
      ),
      trace('d', 0, [0.3, 0.3, 0.3], null, [1, 2]), // K = 2 and constant gold: 0 for every method in within.all, not localized
    ],
  };
  const c = analyzeGold(data).checkpoints.toy;

  it('within ρ over all traces: 0 where the credit says nothing or ρ is undefined; where it varies: only those traces', () => {
    expect(c.traces).toBe(4);
    expect(c.exitPoints).toBe(5 + 5 + 5 + 3);
    expect(c.undefinedTraces).toBe(1);
    const good = c.methods[GOOD].subsets.all;
    // per trace 1, 1, 1, 0 (trace d)
    expect(good.within.all.value).toBeCloseTo(0.75, 12);
    expect(good.within.varies.value).toBeCloseTo(1, 12);
    expect(good.within.tracesVaries).toBe(3);
    expect(c.methods.loo.subsets.all.within.all.value).toBeCloseTo(-0.75, 12);
    const free = c.methods[FREE].subsets.all.within;
    // FREE: per trace 0 (constant), 0 (NaN), 1, 0: mean 1/4; where it varies: trace c alone
    expect(free.all.value).toBeCloseTo(0.25, 12);
    expect(free.varies.value).toBeCloseTo(1, 12);
    expect(free.tracesVaries).toBe(1);
    expect([free.silent, free.nan]).toEqual([2, 1]);
    // a method with no rows on a trace is silent there, counted as NaN
    const missing = analyzeGold({
      ...data,
      traces: data.traces.map((t) => (t.key === 'toy/c' ? { ...t, credits: { ...t.credits, [FREE]: undefined! } } : t)),
    });
    expect(missing.checkpoints.toy.methods[FREE].subsets.all.within).toMatchObject({ silent: 3, nan: 2, tracesVaries: 0 }); // a, b, c silent; d varies but has K = 2
    expect(missing.checkpoints.toy.methods[FREE].subsets.all.within.all.value).toBe(0);
    expect(
      withinAllPerTrace(
        [
          [1, 1, 1],
          [NaN, 2, 3],
          [3, 2, 1],
        ],
        [
          [1, 2, 3],
          [1, 2, 3],
          [1, 2, 3],
        ],
      ),
    ).toEqual([0, 0, -1]);
  });

  it('splits by correct and wrong traces: signed position is +k on the correct trace and −k on the wrong ones', () => {
    const sp = c.methods.signedPosition.subsets;
    // correct c: ΔV [0.3, 0.1, 0.2, 0.15] vs k = 1..4: ranks [4, 1, 3, 2] vs [1, 2, 3, 4]: ρ = 1 − 6·(9+1+0+4)/60 = −0.4
    expect(sp.correct.traces).toBe(1);
    expect(sp.correct.within.all.value).toBeCloseTo(-0.4, 12);
    // wrong: a: ΔV ranks [4, 1, 2, 3] vs −k ranks [4, 3, 2, 1]: ρ = 1 − 6·(0+4+0+4)/60 = 0.2;
    // b: ΔV ranks [2, 4, 3, 1] vs [4, 3, 2, 1]: ρ = 1 − 6·(4+1+1+0)/60 = 0.4; d: 0 → mean 0.2
    expect(sp.wrong.traces).toBe(3);
    expect(sp.wrong.within.all.value).toBeCloseTo(0.2, 12);
    expect(sp.all.within.all.value).toBeCloseTo((-0.4 + 0.2 + 0.4 + 0) / 4, 12);
    // unsigned position on the wrong traces: the reverse
    expect(c.methods.position.subsets.wrong.within.all.value).toBeCloseTo(-0.2, 12);
    expect(c.methods[GOOD].subsets.correct.pooled).toBeCloseTo(1, 12);
  });

  it("the gold's own split-half reliability: Spearman–Brown of the halves' within-trace Spearman; the MC(20) proxy's apart", () => {
    // halves agree on a and b (1), 0.8 on c, d is undefined: mean 14/15 → reliability 2·(14/15)/(1 + 14/15) = 28/29
    expect(c.gold.all.tracesUsed).toBe(3);
    expect(c.gold.all.reliability.value).toBeCloseTo(28 / 29, 12);
    expect(c.gold.all.ceiling.value).toBeCloseTo(Math.sqrt(28 / 29), 12);
    // on the correct trace alone: 0.8 → 1.6 / 1.8
    expect(c.gold.correct.reliability.value).toBeCloseTo(1.6 / 1.8, 12);
    expect(c.gold.wrong.reliability.value).toBeCloseTo(1, 12);
    expect(c.proxy.reliability.value).toBeCloseTo(1, 12);
  });

  it('localizes on the failed traces with an error in the thinking, lower credit = blame; values; costs', () => {
    const good = c.methods[GOOD];
    expect(c.localizationTraces).toBe(2);
    expect(good.localizationTop1.value).toBeCloseTo(0.5, 12);
    expect(good.chanceTop1).toBeCloseTo(0.25, 12);
    // v² is monotone in v on [0, 1]: the value Spearman is 1; methods without values have none
    expect(good.subsets.all.value).toBeCloseTo(1, 12);
    expect(c.methods.loo.subsets.all.value).toBeNull();
    expect(c.methods['mc.n20'].tokensPerTrace).toBe((4000 + 4000 + 4000 + 2000) / 4);
    expect(c.methods.loo.wallMsPerTrace).toBe(5);
    expect(c.methods.signedLength.tokensPerTrace).toBe(0);
    expect(good.oracle).toBe(true);
    expect(c.methods[FREE].oracle).toBe(false);
  });

  it('paired comparisons: with signed position for all but itself, with MC at matched tokens for all but MC', () => {
    // GOOD − signed position per trace: (1 − (−0.4)) + (1 − 0.2) + (1 − 0.4) + 0 = 2.8 over 4 traces
    expect(c.methods[GOOD].vsSignedPosition!.diff).toBeCloseTo(0.7, 12);
    expect(c.methods.signedPosition.vsSignedPosition).toBeNull();
    // 100 tokens is below MC(20)'s 3500: compared with MC(20), which costs more; MC(20) is ΔV itself: 1, 1, 1, 0
    const mc = c.methods[GOOD].vsMcAtCost!;
    expect([mc.n, mc.range]).toEqual([20, 'below']);
    expect(mc.diff).toBeCloseTo(0, 12);
    expect(c.methods['mc.n20'].vsMcAtCost).toBeNull();
    const m = goldSummaryMetrics(analyzeGold(data));
    expect(m[`toy.${GOOD}.withinAll`]).toBeCloseTo(0.75, 12);
    expect(m['toy.goldCeiling']).toBeCloseTo(Math.sqrt(28 / 29), 12);
    expect(m['toy.mc.n20.beatsMcAtCost']).toBeNaN();
  });
});
