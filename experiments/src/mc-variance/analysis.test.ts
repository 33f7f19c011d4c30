import { Rng } from '@rred/core';
import type { ContinuationRecord } from '@rred/estimators';
import { sdBySamples, truncationStudy } from './analysis';

describe('mc-variance analysis', () => {
  it('sdBySamples falls with m and counts exit points under the threshold', () => {
    const rows = sdBySamples(
      [
        [1, 0, 1, 0],
        [1, 1, 1, 1],
      ],
      4,
      500,
      0.1,
      new Rng(2),
    );
    expect(rows.map((r) => r.samples)).toEqual([1, 2, 3, 4]);
    expect(rows[3].meanSd).toBeLessThan(rows[0].meanSd);
    // the constant group has SD 0 (always ≤ 0.1); the p = 0.5 group never reaches 0.1 with 4 samples
    expect(rows.every((r) => r.fractionBelowThreshold === 0.5)).toBe(true);
  });

  it('truncation study: a shorter limit cuts the long continuations and their correct answers', () => {
    const rec = (exitPoint: number, offset: number, length: number, utility: number): ContinuationRecord => ({
      exitPoint,
      offset,
      limit: 100 - offset,
      length,
      truncated: false,
      utility,
      correct: utility > 0,
    });
    const traces = [[rec(0, 0, 30, 1), rec(0, 0, 60, 1), rec(1, 20, 20, 0), rec(1, 20, 45, 1)]];
    const [half, full] = truncationStudy(traces, 100, 'completion', [0.5, 1]);
    // limit 50 on the completion: from offset 0 at most 50 tokens (60 cut), from offset 20 at most 30 (45 cut)
    expect(half).toMatchObject({ limit: 50, cut: 2, cutCorrect: 2, correctUnderM: 3, continuations: 4 });
    expect(half.cutCorrectFraction).toBeCloseTo(2 / 3, 12);
    // V at exit 0: 1 → 0.5; exit 1: 0.5 → 0 → mean shift 0.5
    expect(half.meanAbsValueShift).toBeCloseTo(0.5, 12);
    expect(full).toMatchObject({ cut: 0, cutCorrect: 0, meanAbsValueShift: 0 });
  });
});
