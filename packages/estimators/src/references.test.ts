import type { Trace } from '@rred/lm';
import { buildReferenceSet, distinctAnswers, ownReferences, referenceFromTrace, referencesFit } from './references';

const tokens = { endThink: 8, eos: 9 };
const a = { solution: [1, 2], answer: [5] };
const b = { solution: [1, 3], answer: [5] };
const c = { solution: [4], answer: [6] };

describe('buildReferenceSet', () => {
  it('selects by source, de-duplicates pairs and caps the count', () => {
    const inputs = { dataset: [a, a, b], own: [c, a] };
    expect(buildReferenceSet(inputs, 'dataset', tokens, 10)).toEqual([a, b]);
    expect(buildReferenceSet(inputs, 'own', tokens, 10)).toEqual([c, a]);
    expect(buildReferenceSet(inputs, 'both', tokens, 10)).toEqual([a, b, c]);
    expect(buildReferenceSet(inputs, 'both', tokens, 2)).toEqual([a, b]);
    expect(buildReferenceSet({}, 'both', tokens, 2)).toEqual([]);
  });
  it('lists distinct answers once', () => {
    expect(distinctAnswers([a, b, c])).toEqual([[5], [6]]);
  });
  it('rejects references carrying special tokens or no answer, naming the entry', () => {
    expect(() => buildReferenceSet({ own: [{ solution: [1, 8], answer: [5] }] }, 'own', tokens, 4)).toThrow(
      /references\.own\[0\]\.solution\[1\]/,
    );
    expect(() => buildReferenceSet({ dataset: [{ solution: [1], answer: [] }] }, 'dataset', tokens, 4)).toThrow(
      /references\.dataset\[0\]\.answer: is empty/,
    );
    expect(() => buildReferenceSet({ dataset: [{ solution: [1.5], answer: [2] } as never] }, 'dataset', tokens, 4)).toThrow(
      /expected \{solution/,
    );
  });
});

describe('referenceFromTrace', () => {
  const base: Trace = {
    problemId: 'p',
    prompt: [0],
    completion: [1, 2, 8, 5, 9],
    logprobs: [],
    entropies: [],
    thinkEnd: 2,
    answer: '5',
    reward: 1,
    text: '',
  };
  it('extracts thinking and bare answer of a correct, finished trace', () => {
    expect(referenceFromTrace(base, tokens)).toEqual({ solution: [1, 2], answer: [5] });
  });
  it('returns null for incorrect, unclosed or unfinished traces', () => {
    expect(referenceFromTrace({ ...base, reward: 0 }, tokens)).toBeNull();
    expect(referenceFromTrace({ ...base, completion: [1, 2], thinkEnd: 2 }, tokens)).toBeNull();
    expect(referenceFromTrace({ ...base, completion: [1, 2, 8, 5] }, tokens)).toBeNull();
  });
  it('collects the correct traces of a group', () => {
    expect(ownReferences([base, { ...base, reward: 0 }, { ...base, completion: [7, 8, 6, 9], thinkEnd: 1 }], tokens)).toEqual([
      { solution: [1, 2], answer: [5] },
      { solution: [7], answer: [6] },
    ]);
  });
});

describe('referencesFit', () => {
  it('asks whether prompt + thinking + the longest u* </think> y* <eos> fits the context', () => {
    const trace = { prompt: [1, 2, 3], thinkEnd: 4 };
    // longest suffix: [1, 2] + </think> + [5] + <eos> = 5 tokens; 3 + 4 + 5 = 12
    expect(referencesFit(trace, [a, c], 12)).toBe(true);
    expect(referencesFit(trace, [a, c], 11)).toBe(false);
    expect(referencesFit(trace, [c], 11)).toBe(true);
    expect(referencesFit(trace, [], 7)).toBe(true);
  });
});
