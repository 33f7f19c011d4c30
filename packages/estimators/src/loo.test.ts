import { UserError } from '@rred/core';
import { leaveOneOut } from './loo';
import { toyModel, toySegments, toyTokens, toyTrace } from './testing/toy-setup';

const inputs = { tokens: toyTokens };

describe('leaveOneOut', () => {
  it('equals the direct PMI between each segment and everything after it', async () => {
    const model = toyModel();
    const trace = toyTrace(model);
    const res = await leaveOneOut(model, trace, toySegments, inputs);
    const { prompt, completion } = trace;
    toySegments.forEach((seg, i) => {
      const rest = completion.slice(seg.end);
      const withSeg = model.sequenceLogProb([...prompt, ...completion.slice(0, seg.end)], rest);
      const without = model.sequenceLogProb([...prompt, ...completion.slice(0, seg.start)], rest);
      expect(res.credits[i]).toBeCloseTo(withSeg - without, 10);
    });
    // one call for all "with" terms, one per segment for the "without" terms
    expect(model.calls.score).toBe(1 + toySegments.length);
    const restTokens = toySegments.reduce((a, s) => a + completion.length - s.end, 0);
    const prefixTokens = toySegments.reduce((a, s) => a + prompt.length + s.start, 0);
    expect(res.cost.tokensForwarded).toBe(prompt.length + completion.length + prefixTokens + restTokens);
  });

  it('without the answer, the last segment has nothing after it and PMI_K = 0', async () => {
    const model = toyModel();
    const trace = toyTrace(model);
    const res = await leaveOneOut(model, trace, toySegments, inputs, { includeAnswer: false });
    expect(res.credits[2]).toBe(0);
    const { prompt, completion } = trace;
    const rest = completion.slice(2, 5);
    expect(res.credits[0]).toBeCloseTo(model.sequenceLogProb([...prompt, 1, 0], rest) - model.sequenceLogProb(prompt, rest), 10);
    expect(model.calls.score).toBe(1 + 2);
  });

  it('rejects unknown keys', async () => {
    const model = toyModel();
    const err = await leaveOneOut(model, toyTrace(model), toySegments, inputs, { includeAnswers: true } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/includeAnswers/);
  });
});
