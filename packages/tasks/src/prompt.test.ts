import { promptTokens, tokenizeExample } from './prompt';

// ids 0..4 special, characters from 10 on
const tok = { pad: 0, bos: 1, eos: 2, think: 3, endThink: 4, encode: (t: string) => [...t].map((c) => 10 + c.charCodeAt(0) - 48) };

describe('sequence layout', () => {
  it('prompt = <bos> problem <think>; example = prompt | thinking </think> answer <eos>', () => {
    expect(promptTokens(tok, '12')).toEqual([1, 11, 12, 3]);
    expect(tokenizeExample(tok, { prompt: '1', thinking: '23', answer: '5' })).toEqual({
      prompt: [1, 11, 3],
      completion: [12, 13, 4, 15, 2],
    });
  });
});

describe('tokenizeExample: untrained completion positions', () => {
  // a char tokenizer over the composite alphabet; ids from 10 on
  const alphabet = '0123456789+-*=;?\n abcdefghijkltw,';
  const ctok = { pad: 0, bos: 1, eos: 2, think: 3, endThink: 4, encode: (t: string) => [...t].map((c) => 10 + alphabet.indexOf(c)) };
  const prompt = 'a=3+4;b=a-2;c=5+b;?b,c';
  const trained = (ex: ReturnType<typeof tokenizeExample>) => ex.completion.filter((_, i) => !(ex.untrained ?? []).includes(i));

  it("an early exit's </think>, and only it, is untrained", () => {
    const thinking = 'a=3+4=7\nb=7-2=5\n';
    const full = tokenizeExample(ctok, { prompt, thinking, answer: '5,0' });
    expect(full.untrained).toBeUndefined();
    const early = tokenizeExample(ctok, { prompt, thinking, answer: '5,0', earlyExit: true });
    expect(early.completion).toEqual(full.completion);
    expect(early.untrained).toEqual([full.completion.indexOf(ctok.endThink)]);
    expect(trained(early)).toEqual([...ctok.encode(thinking), ...ctok.encode('5,0'), ctok.eos]);
  });

  it('an early exit at s_0 (no thinking) leaves the </think> right after <think> untrained', () => {
    const early = tokenizeExample(ctok, { prompt, thinking: '', answer: '5,0', earlyExit: true });
    expect(early.untrained).toEqual([0]);
    expect(trained(early)).toEqual([...ctok.encode('5,0'), ctok.eos]);
  });

  it('a masked wrong line drops exactly its characters, keeping the wait correction', () => {
    const thinking = 'a=3+4=7\nb=7-2=4\nwait b=7-2=5\nc=5+5=0';
    const span: [number, number] = [8, 15];
    expect(thinking.slice(...span)).toBe('b=7-2=4');
    const ex = tokenizeExample(ctok, { prompt, thinking, answer: '5,0', untrainedSpans: [span] });
    expect(ex.untrained).toEqual([8, 9, 10, 11, 12, 13, 14]);
    expect(trained(ex)).toEqual([...ctok.encode('a=3+4=7\n\nwait b=7-2=5\nc=5+5=0'), ctok.endThink, ...ctok.encode('5,0'), ctok.eos]);
  });
});
