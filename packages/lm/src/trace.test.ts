import { Tokenizer } from './tokenizer';
import { buildTrace, textAfterThink, thinkEndOf } from './trace';

const tok = Tokenizer.fromAlphabet('0123456789+= ');

describe('trace helpers', () => {
  it('finds </think>, cuts the answer span and decodes the completion', () => {
    const prompt = tok.encode('<bos>2+3=<think>');
    const completion = tok.encode('2+3 = 5</think>5<eos>');
    const sample = { tokens: completion, logprobs: completion.map(() => -0.5), entropies: completion.map(() => 1), truncated: false };
    const trace = buildTrace(tok, { problemId: 'p1', prompt, sample, answer: '5', reward: 1 });
    expect(trace.thinkEnd).toBe(completion.indexOf(tok.endThink));
    expect(trace.text).toBe(tok.decode(completion));
    expect(trace.text.endsWith('</think>5<eos>')).toBe(true);
    expect(textAfterThink(tok, completion)).toBe('5');
  });

  it('treats a completion without </think> as all thinking and without an answer', () => {
    const completion = tok.encode('1+1=2 ');
    expect(thinkEndOf(completion, tok.endThink)).toBe(completion.length);
    expect(textAfterThink(tok, completion)).toBeNull();
    expect(textAfterThink(tok, tok.encode('1</think>42'))).toBe('42'); // no <eos>: to the end
  });
});
