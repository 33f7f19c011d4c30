import { goldConfigSchema } from './config';
import { analyzeGold } from './analysis';
import type { GoldData, GoldTrace } from './load';

const cost = (method: string, tokens: number) => ({
  method,
  tokensForwarded: tokens,
  tokensGenerated: 0,
  forwardPasses: 1,
  wallMs: tokens / 10,
});

/** A trace with V_gold `gold`; method 'good' credits = ΔV_gold ×2, 'bad' = −ΔV_gold; 'mc.n20' values = gold; its halves agree. */
function trace(key: string, reward: number, gold: number[], firstError: number | null): GoldTrace {
  const d = gold.slice(1).map((v, i) => v - gold[i]);
  const K = d.length;
  return {
    checkpoint: 'toy',
    key: `toy/${key}`,
    reward,
    segmentLengths: d.map((_, i) => 3 + ((i * 7) % 4)),
    gold,
    halves: [gold, gold.slice()],
    credits: {
      'mc.n20': d,
      'rredcot.forced.remaining.both.log': d.map((x) => 2 * x),
      loo: d.map((x) => -x),
      length: d.map((_, i) => 3 + ((i * 7) % 4)),
      position: d.map((_, i) => i + 1),
    },
    values: { 'mc.n20': gold, 'rredcot.forced.remaining.both.log': gold.map((v) => v * v) },
    costs: { 'mc.n20': cost('mc.n20', 1000 * K), 'rredcot.forced.remaining.both.log': cost('r', 100), loo: cost('loo', 50) },
    firstError,
  };
}

describe('analyzeGold', () => {
  const config = goldConfigSchema.parse({ checkpoints: ['x/toy.ckpt'], mcSamples: [20], analysis: { bootstrapResamples: 50 } });
  const data: GoldData = {
    config,
    checkpoints: ['toy'],
    traces: [
      trace('a', 0, [0.5, 0.6, 0.1, 0.05, 0], 2),
      trace('b', 0, [0.4, 0.2, 0.3, 0.35, 0.1], 1),
      trace('c', 1, [0.2, 0.5, 0.6, 0.9, 1], null),
      trace('d', 0, [0.3, 0.3, 0.3], null), // K = 2 and constant gold: in no within-trace mean, not localized
    ],
  };
  const c = analyzeGold(data).checkpoints.toy;

  it('scores a method that ranks like ΔV_gold at 1 and its reverse at −1, within traces, with the counts', () => {
    expect(c.traces).toBe(4);
    expect(c.exitPoints).toBe(5 + 5 + 5 + 3);
    const good = c.methods['rredcot.forced.remaining.both.log'];
    expect(good.withinSpearman.value).toBeCloseTo(1, 12);
    expect(good.tracesUsed.within).toBe(3);
    expect(c.methods.loo.withinSpearman.value).toBeCloseTo(-1, 12);
    expect(good.pooledSpearman).toBeCloseTo(1, 12);
    expect(good.tracesUsed.pooledSegments).toBe(14);
    // v² is monotone in v on [0, 1]: the value Spearman is 1; methods without values have none
    expect(good.valueSpearman).toBeCloseTo(1, 12);
    expect(c.methods.loo.valueSpearman).toBeNull();
  });

  it('localizes on the failed traces with an error in the thinking, lower credit = blame', () => {
    // trace a: ΔV = [0.1, −0.5, −0.05, −0.05], error in segment 2 → the largest drop: hit; trace b: [−0.2, 0.1, 0.05, −0.25], error 1 → miss
    const good = c.methods['rredcot.forced.remaining.both.log'];
    expect(c.localizationTraces).toBe(2);
    expect(good.tracesUsed.localization).toBe(2);
    expect(good.localizationTop1.value).toBeCloseTo(0.5, 12);
    expect(good.chanceTop1).toBeCloseTo(0.25, 12);
    // error credits −1.0 (a) and −0.4 (b) against the six others of those traces: −1.0 is below all; −0.4 is above −0.5 only
    expect(good.localizationAuc).toBeCloseTo((6 + 5) / 12, 12);
    // position: the error segment's index vs the others (lowest credit = the first segment): b is a hit
    expect(c.methods.position.localizationTop1.value).toBeCloseTo(0.5, 12);
  });

  it('costs: tokens forwarded and wall per trace, the baselines free; the ceiling from two agreeing halves is 1', () => {
    expect(c.methods['mc.n20'].tokensPerTrace).toBe((4000 + 4000 + 4000 + 2000) / 4);
    expect(c.methods.loo.wallMsPerTrace).toBe(5);
    expect(c.methods.length.tokensPerTrace).toBe(0);
    expect(c.reliabilityN20.value).toBeCloseTo(1, 12);
    expect(c.ceilingN20.value).toBeCloseTo(1, 12);
    expect(c.ceilingTraces).toBe(3);
  });
});
