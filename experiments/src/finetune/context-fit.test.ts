import type { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';
import { candidateReferences, contextFittedHook, fitsContext, longestSuffix } from './context-fit';

const tokens = { endThink: 90, eos: 91 };
function trace(problemId: string, promptLen: number, thinking: number, reward: number, answer = [7]): Trace {
  const completion = [...Array.from({ length: thinking }, (_, i) => 10 + (i % 5)), tokens.endThink, ...answer, tokens.eos];
  return { problemId, prompt: new Array(promptLen).fill(1), completion, logprobs: [], entropies: [], thinkEnd: thinking, answer: '7', reward, text: '' };
}

describe('RREDCoT context fit in GRPO', () => {
  const dataset = (id: string) => (id === 'p' ? [{ solution: new Array(30).fill(3), answer: [7] }, { solution: new Array(20).fill(3), answer: [7, 7] }] : []);

  it('longest scored suffix is u* </think> y* <eos>', () => {
    expect(longestSuffix(dataset('p'))).toBe(33);
    expect(longestSuffix([])).toBe(0);
  });

  it('a trace fits when prompt + thinking + longest suffix ≤ context', () => {
    expect(fitsContext(trace('p', 10, 60, 0), dataset('p'), 103)).toBe(true);
    expect(fitsContext(trace('p', 10, 61, 0), dataset('p'), 103)).toBe(false);
  });

  it('own references are the correct finished traces of the same problem', () => {
    const batch = [trace('p', 5, 12, 1), trace('p', 5, 40, 0), trace('q', 5, 50, 1)];
    const refs = candidateReferences(batch[1], batch, 'own', dataset, tokens);
    expect(refs).toEqual([{ solution: batch[0].completion.slice(0, 12), answer: [7] }]);
    expect(candidateReferences(batch[1], batch, 'both', dataset, tokens)).toHaveLength(3);
    expect(candidateReferences(batch[1], batch, 'dataset', dataset, tokens)).toHaveLength(2);
  });

  it('traces that do not fit reach the estimator with advantage 0 (uniform σ) and are counted', async () => {
    const seen: number[][] = [];
    const inner = async (traces: Trace[], ctx: { advantages: number[] }) => {
      seen.push(ctx.advantages);
      return traces.map((t) => t.completion.map(() => 1 / t.completion.length));
    };
    const fitted = contextFittedHook(inner, (t) => dataset(t.problemId), 100);
    const batch = [trace('p', 10, 40, 1), trace('p', 10, 70, 0), trace('p', 10, 70, 0), trace('p', 10, 20, 0)];
    const out = await fitted.hook(batch, { step: 0, rng: {} as Rng, advantages: [1.5, -0.5, 0, -0.5] });
    // trace 1 (70 + 10 + 33 > 100) falls back; trace 2 already had A = 0; trace 3 fits
    expect(seen[0]).toEqual([1.5, 0, 0, -0.5]);
    expect(fitted.lastCall()).toEqual({ fallback: 1, estimated: 2 });
    expect(out[1]).toHaveLength(batch[1].completion.length);
  });
});
