/** The toy problem the estimator tests share: an enumerable LM, one hand-made trace, its segments. */
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import type { Reference } from '../types';
import { EnumerableLM } from './enumerable-lm';
import { exactAnswerReward } from './enumerate';

// vocabulary: 0, 1, 2 ordinary tokens (2 doubles as the line break); 3 = </think>; 4 = <eos>
/** Token 2 also plays the line break of reference lines (the value term's start rules split references at it). */
export const toyTokens = { endThink: 3, eos: 4, newline: 2 };
const toyAccepted = [[1], [0, 1]];
export const toyReward = exactAnswerReward(toyAccepted, toyTokens);

/** The toy LM; `maxLength` bounds prompt + completion (tests that sample longer rollouts raise it). */
export function toyModel(seed = 11, maxLength = 32): EnumerableLM {
  return new EnumerableLM({
    vocabSize: 5,
    tokens: toyTokens,
    seed,
    scale: 3,
    bias: [0, 0.6, 0, 0.3, -1.5],
    eosBiasAfterThink: 2,
    maxLength,
  });
}

/** prompt [0, 2]; thinking [1, 0, 2, 1, 0]; then </think> 1 <eos>. */
export function toyTrace(model: EnumerableLM): Trace {
  const prompt = [0, 2];
  const completion = [1, 0, 2, 1, 0, 3, 1, 4];
  const ctx = prompt.slice();
  const logprobs: number[] = [];
  const entropies: number[] = [];
  for (const t of completion) {
    const lp = model.nextLogProbs(ctx);
    logprobs.push(lp[t]);
    entropies.push(-lp.reduce((s, x) => s + Math.exp(x) * x, 0));
    ctx.push(t);
  }
  return { problemId: 'toy-1', prompt, completion, logprobs, entropies, thinkEnd: 5, answer: '1', reward: 1, text: '' };
}

export const toySegments: Segment[] = [
  { start: 0, end: 2 },
  { start: 2, end: 3 },
  { start: 3, end: 5 },
];

/** Correct reference pairs whose full suffix fits the 6-token enumeration horizon. */
export const toyReferences: Reference[] = [
  { solution: [1, 0], answer: [1] },
  { solution: [2], answer: [0, 1] },
  { solution: [1], answer: [1] },
];
