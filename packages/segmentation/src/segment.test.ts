import { Rng } from '@rred/core';
import { assertExactCover } from './cuts';
import { SEGMENTATION_STRATEGIES, segmentationConfig, type SegmentationConfig } from './config';
import { segment } from './segment';
import { randomTrace, TEST_VOCAB, traceFromText } from './test-traces';

/** Configs covering every strategy at several K, including K = 1. */
function configs(): SegmentationConfig[] {
  const out: SegmentationConfig[] = [];
  for (const k of [1, 2, 3, 8, 40]) {
    out.push(segmentationConfig({ strategy: 'keyword', maxSegments: k }));
    out.push(segmentationConfig({ strategy: 'entropy', maxSegments: k }));
    out.push(segmentationConfig({ strategy: 'cutpoint', maxSegments: k, tau: 0.5, keepEvery: 1 }));
    out.push(segmentationConfig({ strategy: 'cutpoint', maxSegments: k, keepEvery: 3 }));
    out.push(segmentationConfig({ strategy: 'fixed', maxSegments: k, segmentLength: 5 }));
    out.push(segmentationConfig({ strategy: 'hybrid', maxSegments: k }));
    out.push(segmentationConfig({ strategy: 'hybrid', maxSegments: k, mergeBy: 'boundary', markers: ['wait'] }));
  }
  return out;
}

describe('segment (properties over random traces)', () => {
  const rng = new Rng(12345);
  const traces = Array.from({ length: 300 }, () => randomTrace(rng));
  const all = configs();

  it('covers the thinking span exactly with contiguous, non-empty, non-overlapping segments, at most K', () => {
    let segmentsSeen = 0;
    for (const trace of traces) {
      for (const cfg of all) {
        const segs = segment(trace, cfg, TEST_VOCAB);
        assertExactCover(segs, trace.thinkEnd);
        expect(segs.length).toBeLessThanOrEqual(cfg.maxSegments);
        segmentsSeen += segs.length;
      }
    }
    // the property is not vacuous: plenty of multi-segment outputs were checked
    expect(segmentsSeen).toBeGreaterThan(traces.length * all.length);
  });

  it('is deterministic', () => {
    for (const trace of traces.slice(0, 50)) {
      for (const cfg of all) {
        const copy = JSON.parse(JSON.stringify(trace));
        expect(segment(copy, cfg, TEST_VOCAB)).toEqual(segment(trace, cfg, TEST_VOCAB));
      }
    }
  });

  it('gives zero segments for an empty thinking span, for every strategy', () => {
    const empty = traceFromText('', new Rng(1));
    expect(empty.thinkEnd).toBe(0);
    for (const cfg of all) expect(segment(empty, cfg, TEST_VOCAB)).toEqual([]);
  });

  it('uses all K segments when the trace has enough candidate cuts', () => {
    const long = traceFromText('a=3+4=7\nb=7*2=4\nc=5+4=9\nwait c=5+4=9\nd=1-2=9\ne=1+1=2', new Rng(2));
    for (const strategy of SEGMENTATION_STRATEGIES) {
      const cfg = segmentationConfig(strategy === 'cutpoint' ? { strategy, tau: 1, keepEvery: 1, maxSegments: 4 } : { strategy, maxSegments: 4 });
      expect(segment(long, cfg, TEST_VOCAB)).toHaveLength(4);
    }
  });

  it('rejects NaN signals instead of dropping them', () => {
    const trace = traceFromText('a=3+4=7\nb=7*2=4', new Rng(3));
    trace.entropies[5] = NaN;
    expect(() => segment(trace, segmentationConfig({ strategy: 'entropy' }), TEST_VOCAB)).toThrow(/entropies\[5\] is NaN/);
    expect(() => segment(trace, segmentationConfig({ strategy: 'hybrid', maxSegments: 1 }), TEST_VOCAB)).toThrow(/NaN/);
  });

  it('rejects a thinkEnd outside the completion', () => {
    const trace = { ...traceFromText('a=3', new Rng(3)), thinkEnd: 99 };
    expect(() => segment(trace, segmentationConfig({ strategy: 'fixed' }), TEST_VOCAB)).toThrow(/thinkEnd 99/);
  });
});

describe('segmentationConfig', () => {
  it('fills defaults per strategy', () => {
    expect(segmentationConfig()).toEqual({ strategy: 'hybrid', newline: true, markers: ['wait'], caseSensitive: false, maxSegments: 8, mergeBy: 'pair-sum' });
    expect(segmentationConfig({ strategy: 'cutpoint' })).toEqual({ strategy: 'cutpoint', tau: 0.9, keepEvery: 2, maxSegments: 16 });
  });

  it('rejects unknown keys, keys of another strategy, bad values and a missing strategy', () => {
    expect(() => segmentationConfig({ strategy: 'entropy', k: 3 })).toThrow(/unknown key 'k'/);
    expect(() => segmentationConfig({ strategy: 'entropy', tau: 0.5 })).toThrow(/unknown key 'tau'/);
    expect(() => segmentationConfig({ strategy: 'fixed', maxSegments: 0 })).toThrow(/maxSegments: got 0/);
    expect(() => segmentationConfig({ strategy: 'cutpoint', tau: 0 })).toThrow(/tau: got 0/);
    expect(() => segmentationConfig({ strategy: 'words' })).toThrow(/strategy: got "words"/);
    expect(() => segmentationConfig({ maxSegments: 3 })).toThrow(/strategy: got nothing, expected one of 'keyword'/);
  });
});
