import { UserError } from '@rred/core';
import { gradientAttribution } from './gradient';
import { toyModel, toySegments, toyTokens, toyTrace } from './testing/toy-setup';

const inputs = { tokens: toyTokens };

describe('gradientAttribution', () => {
  it("averages the model's per-position gradient norms over each segment", async () => {
    const model = toyModel();
    const trace = toyTrace(model);
    const sequence = [...trace.prompt, ...trace.completion];
    const { norms } = await model.embeddingGradientNorms(sequence, trace.prompt.length);
    const c = norms.slice(2);
    const res = await gradientAttribution(model, trace, toySegments, inputs);
    expect(res.credits[0]).toBeCloseTo((c[0] + c[1]) / 2, 12);
    expect(res.credits[1]).toBeCloseTo(c[2], 12);
    expect(res.credits[2]).toBeCloseTo((c[3] + c[4]) / 2, 12);
    expect(res.extra.answerSegment).toBeCloseTo((c[5] + c[6] + c[7]) / 3, 12);
    const summed = await gradientAttribution(model, trace, toySegments, inputs, { aggregate: 'sum' });
    expect(summed.credits[2]).toBeCloseTo(c[3] + c[4], 12);
    expect(res.cost.forwardPasses).toBe(1);
  });
  it('rejects a bad aggregate naming the key', async () => {
    const model = toyModel();
    const err = await gradientAttribution(model, toyTrace(model), toySegments, inputs, { aggregate: 'max' } as never).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/aggregate: got "max"/);
  });
});
