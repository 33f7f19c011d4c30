import { grailSigma } from './grail';

describe('grailSigma', () => {
  it('shares the thinking mass by saliency and keeps the answer tokens at 1/|o| (hand-computed)', () => {
    // |o| = 4, thinking = 2 tokens with saliency 1 and 3: thinking mass 2/4 split 1:3
    const sigma = grailSigma([1, 3], 4);
    expect(sigma).toEqual([0.125, 0.375, 0.25, 0.25]);
    expect(sigma.reduce((a, b) => a + b, 0)).toBe(1);
    // the trainer's coefficient A·σ_t·|o| for A = −1: the more salient token takes more of the blame
    expect(sigma.map((s) => -1 * s * 4)).toEqual([-0.5, -1.5, -1, -1]);
  });
  it('is uniform without saliency or thinking, and rejects bad saliency', () => {
    expect(grailSigma([0, 0], 4)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(grailSigma([], 2)).toEqual([0.5, 0.5]);
    expect(() => grailSigma([1, -1], 3)).toThrow(/saliency of token 1 is -1/);
    expect(() => grailSigma([1, 1, 1], 2)).toThrow(/3 thinking saliencies for a completion of 2 tokens/);
  });
});
