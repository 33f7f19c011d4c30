import type { Trace } from '@rred/lm';
import { exitPoints } from './exit-points';

const tokens = { endThink: 8, eos: 9 };
function trace(completion: number[], thinkEnd: number): Trace {
  return { problemId: 'p1', prompt: [1, 2], completion, logprobs: [], entropies: [], thinkEnd, answer: null, reward: 0, text: '' };
}

describe('exitPoints', () => {
  it('lists s_0..s_K as prefix lengths of prompt ++ completion', () => {
    const t = trace([3, 4, 5, 6, 8, 7, 9], 4);
    const ep = exitPoints(
      t,
      [
        { start: 0, end: 1 },
        { start: 1, end: 4 },
      ],
      tokens,
    );
    expect(ep.sequence).toEqual([1, 2, 3, 4, 5, 6, 8, 7, 9]);
    expect(ep.exitAt).toEqual([2, 3, 6]);
    expect(ep.segmentLengths).toEqual([1, 3]);
  });
  it('accepts a trace whose thinking never closed and one with no thinking', () => {
    expect(exitPoints(trace([3, 4], 2), [{ start: 0, end: 2 }], tokens).exitAt).toEqual([2, 4]);
    expect(exitPoints(trace([8, 7, 9], 0), [], tokens).exitAt).toEqual([2]);
  });
  it('rejects gaps, overlaps, short cover and a wrong </think> position with the trace named', () => {
    const t = trace([3, 4, 5, 6, 8, 7, 9], 4);
    expect(() =>
      exitPoints(
        t,
        [
          { start: 0, end: 1 },
          { start: 2, end: 4 },
        ],
        tokens,
      ),
    ).toThrow(/trace 'p1': segment 2 .*contiguous/);
    expect(() => exitPoints(t, [{ start: 0, end: 3 }], tokens)).toThrow(/cover \[0, 3\).*\[0, 4\)/);
    expect(() => exitPoints(t, [{ start: 0, end: 0 }], tokens)).toThrow(/segment 1/);
    expect(() => exitPoints(trace([3, 4, 5], 1), [{ start: 0, end: 1 }], tokens)).toThrow(/expected <\/think> \(8\)/);
  });
});
