import { promptTokens, tokenizeExample } from './prompt';

// ids 0..4 special, characters from 10 on
const tok = { pad: 0, bos: 1, eos: 2, think: 3, endThink: 4, encode: (t: string) => [...t].map((c) => 10 + c.charCodeAt(0) - 48) };

describe('sequence layout', () => {
  it('prompt = <bos> problem <think>; example = prompt | thinking </think> answer <eos>', () => {
    expect(promptTokens(tok, '12')).toEqual([1, 11, 12, 3]);
    expect(tokenizeExample(tok, { prompt: '1', thinking: '23', answer: '5' })).toEqual({ prompt: [1, 11, 3], completion: [12, 13, 4, 15, 2] });
  });
});
