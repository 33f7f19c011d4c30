import { pointFlops, pointTokens, predictedExponent, tokenFlops } from './scaling-cost-model';

const shape = { nLayers: 2, dModel: 4, dFF: 8, vocabSize: 10 };

describe('the scaling cost model', () => {
  it('counts one token attending to t keys as L·(2·(4C² + 2CF) + 4tC) + 2CV FLOPs', () => {
    // per layer 2·(64 + 64) + 16·t, two layers, head 80
    expect(tokenFlops(shape, 1)).toBe(2 * (256 + 16) + 80);
    expect(tokenFlops(shape, 5) - tokenFlops(shape, 4)).toBe(2 * 16);
  });

  it('sums the tokens each measure forwards: suffixes after their exit prefixes, the trace, MC prefills and decodes', () => {
    const work = {
      exitAt: [2, 5],
      T: 5,
      suffix: 3,
      mcSamples: 2,
      mcDecode: (k: number) => [4, 1][k],
      trainRows: 3,
      scoredTraces: 1,
      mcTraces: 1,
    };
    expect(pointTokens(work)).toEqual({ rredcotCached: 6, rredcotScratch: 5 + 6, mc: 2 + 5 + 2 * (4 + 1), train: 15 });
    // the RREDCoT measures score copies of the trace in one call: each copy forwards its own suffixes (and T from scratch)
    expect(pointTokens({ ...work, scoredTraces: 3 })).toMatchObject({
      rredcotCached: 3 * 6,
      rredcotScratch: 3 * (5 + 6),
      mc: 2 + 5 + 2 * (4 + 1),
    });
    // MC over copies of the trace: the identical prefixes are prefilled once, every copy decodes its own continuations
    expect(pointTokens({ ...work, mcTraces: 4 }).mc).toBe(2 + 5 + 4 * 2 * (4 + 1));
    const f = pointFlops(shape, work);
    // the cached suffix tokens of exit point 0 attend to 3, 4, 5 keys and those of exit point 1 to 6, 7, 8
    expect(f.rredcotCached).toBe([3, 4, 5, 6, 7, 8].reduce((n, t) => n + tokenFlops(shape, t), 0));
    expect(f.train).toBe(3 * 3 * [1, 2, 3, 4, 5].reduce((n, t) => n + tokenFlops(shape, t), 0));
  });

  it('predicts exponent 1 for work proportional to x and 2 for work proportional to x²', () => {
    const xs = [1, 2, 4, 8];
    expect(
      predictedExponent(
        xs,
        (x) => x,
        (x) => 7 * x,
      ),
    ).toBeCloseTo(1, 12);
    expect(
      predictedExponent(
        xs,
        (x) => x,
        (x) => 3 * x * x,
      ),
    ).toBeCloseTo(2, 12);
  });
});
