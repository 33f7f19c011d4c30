import { Rng } from '@rred/core';
import { CutpointConfigSchema, EntropyConfigSchema, FixedConfigSchema, HybridConfigSchema } from './config';
import { cutpointSegments } from './cutpoint';
import { entropySegments } from './entropy';
import { fixedSegments } from './fixed';
import { hybridSegments } from './hybrid';
import { capCuts, segmentsFromCuts } from './cuts';
import { TEST_VOCAB, traceFromText } from './test-traces';

const bounds = (segs: { start: number; end: number }[]) => segs.map((s) => [s.start, s.end]);

describe('entropy segmentation', () => {
  it('starts a segment at each of the K-1 highest-entropy tokens, ties to the earlier one', () => {
    const entropies = [9, 0.1, 2, 0.3, 2, 0.5, 1.5, 0.2];
    const trace = traceFromText('abcdefgh', new Rng(1), { entropies });
    // position 0 is never a cut; top 3 of positions 1..7: 2 (2.0), 4 (2.0, tie → later), 6 (1.5)
    expect(bounds(entropySegments(trace, EntropyConfigSchema.parse({ strategy: 'entropy', maxSegments: 4 })))).toEqual([
      [0, 2],
      [2, 4],
      [4, 6],
      [6, 8],
    ]);
    expect(bounds(entropySegments(trace, EntropyConfigSchema.parse({ strategy: 'entropy', maxSegments: 2 })))).toEqual([
      [0, 2],
      [2, 8],
    ]);
    expect(bounds(entropySegments(trace, EntropyConfigSchema.parse({ strategy: 'entropy', maxSegments: 1 })))).toEqual([[0, 8]]);
    // more K than tokens: every token its own segment
    expect(entropySegments(trace, EntropyConfigSchema.parse({ strategy: 'entropy', maxSegments: 50 }))).toHaveLength(8);
  });
});

describe('cutpoint segmentation', () => {
  const p = [0.99, 0.5, 0.95, 0.3, 0.2, 0.97, 0.85, 0.6, 0.99, 0.1];
  const trace = traceFromText('abcdefghij', new Rng(1), { logprobs: p.map(Math.log) });
  const cfg = (over: object) => CutpointConfigSchema.parse({ strategy: 'cutpoint', ...over });

  it('cuts before tokens with p < tau', () => {
    // p < 0.9 at 1, 3, 4, 6, 7, 9
    expect(bounds(cutpointSegments(trace, cfg({ tau: 0.9, keepEvery: 1 })))).toEqual([
      [0, 1],
      [1, 3],
      [3, 4],
      [4, 6],
      [6, 7],
      [7, 9],
      [9, 10],
    ]);
    // p < 0.4 at 3, 4, 9
    expect(bounds(cutpointSegments(trace, cfg({ tau: 0.4, keepEvery: 1 })))).toEqual([
      [0, 3],
      [3, 4],
      [4, 9],
      [9, 10],
    ]);
  });

  it('keeps every k-th candidate, then at most K-1', () => {
    // candidates 1,3,4,6,7,9 → every 2nd: 3, 6, 9
    expect(bounds(cutpointSegments(trace, cfg({ tau: 0.9, keepEvery: 2 })))).toEqual([
      [0, 3],
      [3, 6],
      [6, 9],
      [9, 10],
    ]);
    // K = 3 thins 3, 6, 9 to round(3/3)-1=0 → 3 and round(6/3)-1=1 → 6
    expect(bounds(cutpointSegments(trace, cfg({ tau: 0.9, keepEvery: 2, maxSegments: 3 })))).toEqual([
      [0, 3],
      [3, 6],
      [6, 10],
    ]);
  });

  it('a position-0 low-probability token is not a cut', () => {
    const t = traceFromText('ab', new Rng(1), { logprobs: [Math.log(0.01), Math.log(0.99)] });
    expect(bounds(cutpointSegments(t, cfg({ tau: 0.9, keepEvery: 1 })))).toEqual([[0, 2]]);
  });
});

describe('fixed segmentation', () => {
  const trace = traceFromText('abcdefghijk', new Rng(1));
  it('splits into fixed-length pieces, the last shorter', () => {
    expect(bounds(fixedSegments(trace, FixedConfigSchema.parse({ strategy: 'fixed', segmentLength: 4 })))).toEqual([
      [0, 4],
      [4, 8],
      [8, 11],
    ]);
    expect(bounds(fixedSegments(trace, FixedConfigSchema.parse({ strategy: 'fixed', segmentLength: 20 })))).toEqual([[0, 11]]);
  });
  it('grows the length to keep at most K segments', () => {
    // 11 tokens, K = 2 → length ceil(11/2) = 6
    expect(bounds(fixedSegments(trace, FixedConfigSchema.parse({ strategy: 'fixed', segmentLength: 2, maxSegments: 2 })))).toEqual([
      [0, 6],
      [6, 11],
    ]);
  });
});

describe('hybrid segmentation', () => {
  // lines: 'ab\n' [0,3), 'cd\n' [3,6), 'ef\n' [6,9), 'gh' [9,11)
  const text = 'ab\ncd\nef\ngh';
  const entropies = [1, 1, 1, 0.1, 0.1, 0.1, 2, 2, 2, 0.2, 0.3];
  const trace = traceFromText(text, new Rng(1), { entropies });
  const cfg = (over: object) => HybridConfigSchema.parse({ strategy: 'hybrid', ...over });

  it('keeps the keyword split when it has at most K segments', () => {
    expect(bounds(hybridSegments(trace, cfg({ maxSegments: 4 }), TEST_VOCAB))).toEqual([
      [0, 3],
      [3, 6],
      [6, 9],
      [9, 11],
    ]);
  });

  it("'pair-sum' merges the adjacent pair with the lowest summed token entropy", () => {
    // segment sums 3, 0.3, 6, 0.5; pairs: 3.3, 6.3, 6.5 → merge the first two
    expect(bounds(hybridSegments(trace, cfg({ maxSegments: 3 }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 9],
      [9, 11],
    ]);
    // sums 3.3, 6, 0.5; pairs: 9.3, 6.5 → merge the last two
    expect(bounds(hybridSegments(trace, cfg({ maxSegments: 2 }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 11],
    ]);
    expect(bounds(hybridSegments(trace, cfg({ maxSegments: 1 }), TEST_VOCAB))).toEqual([[0, 11]]);
  });

  it("'boundary' removes the exit point before the lowest-entropy token", () => {
    // boundaries start tokens 3 (0.1), 6 (2), 9 (0.2): remove 3, then 9
    expect(bounds(hybridSegments(trace, cfg({ maxSegments: 3, mergeBy: 'boundary' }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 9],
      [9, 11],
    ]);
    expect(bounds(hybridSegments(trace, cfg({ maxSegments: 2, mergeBy: 'boundary' }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 11],
    ]);
  });

  it('merges ties leftmost first', () => {
    const flat = traceFromText(text, new Rng(1), { entropies: Array(11).fill(1) });
    // sums 3, 3, 3, 2: pairs 6, 6, 5 → last pair; then sums 3, 3, 5: pairs 6, 8 → first pair
    expect(bounds(hybridSegments(flat, cfg({ maxSegments: 3 }), TEST_VOCAB))).toEqual([
      [0, 3],
      [3, 6],
      [6, 11],
    ]);
    expect(bounds(hybridSegments(flat, cfg({ maxSegments: 2 }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 11],
    ]);
    // three equal lines: pairs 6, 6 → the leftmost pair merges
    const even = traceFromText('ab\ncd\nef\n', new Rng(1), { entropies: Array(9).fill(1) });
    expect(bounds(hybridSegments(even, cfg({ maxSegments: 2 }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 9],
    ]);
    expect(bounds(hybridSegments(even, cfg({ maxSegments: 2, mergeBy: 'boundary' }), TEST_VOCAB))).toEqual([
      [0, 6],
      [6, 9],
    ]);
  });
});

describe('cut helpers', () => {
  it('segmentsFromCuts drops out-of-range and duplicate cuts', () => {
    expect(bounds(segmentsFromCuts([5, 0, 3, 3, 10, 12], 10))).toEqual([
      [0, 3],
      [3, 5],
      [5, 10],
    ]);
    expect(segmentsFromCuts([1, 2], 0)).toEqual([]);
  });
  it('capCuts keeps K-1 evenly spread cuts', () => {
    expect(capCuts([1, 2, 3, 4, 5, 6, 7, 8, 9], 4)).toEqual([2, 5, 7]);
    expect(capCuts([1, 2], 4)).toEqual([1, 2]);
    expect(capCuts([1, 2], 1)).toEqual([]);
  });
});
