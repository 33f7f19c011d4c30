import { Tokenizer } from '@rred/lm';
import { COMPOSITE_TASK_ALPHABET } from '@rred/tasks';
import { tokenizeExample } from './task-examples';

describe('tokenizeExample: untrained completion positions', () => {
  const tok = Tokenizer.fromAlphabet(COMPOSITE_TASK_ALPHABET);
  const prompt = 'a=3+4;b=a-2;c=5+b;?b,c';
  /** The completion tokens that stay trained, as text. */
  const trainedText = (ex: ReturnType<typeof tokenizeExample>) => tok.decode(ex.completion.filter((_, i) => !(ex.untrained ?? []).includes(i)));

  it("an early exit's </think>, and only it, is untrained", () => {
    const thinking = 'a=3+4=7\nb=7-2=5\n';
    const full = tokenizeExample(tok, { prompt, thinking, answer: '5,0' });
    expect(full.untrained).toBeUndefined();
    const early = tokenizeExample(tok, { prompt, thinking, answer: '5,0', earlyExit: true });
    expect(early.completion).toEqual(full.completion);
    expect(early.untrained).toEqual([full.completion.indexOf(tok.endThink)]);
    expect(trainedText(early)).toBe('a=3+4=7\nb=7-2=5\n5,0<eos>');
  });

  it('an early exit at s_0 (no thinking) leaves the </think> right after <think> untrained', () => {
    const early = tokenizeExample(tok, { prompt, thinking: '', answer: '5,0', earlyExit: true });
    expect(early.untrained).toEqual([0]);
    expect(trainedText(early)).toBe('5,0<eos>');
  });

  it('a masked wrong line drops exactly its characters, keeping the wait correction', () => {
    const thinking = 'a=3+4=7\nb=7-2=4\nwait b=7-2=5\nc=5+5=0';
    const span: [number, number] = [8, 15];
    expect(thinking.slice(...span)).toBe('b=7-2=4');
    const ex = tokenizeExample(tok, { prompt, thinking, answer: '5,0', untrainedSpans: [span] });
    expect(ex.untrained).toEqual([8, 9, 10, 11, 12, 13, 14]);
    expect(trainedText(ex)).toBe('a=3+4=7\n\nwait b=7-2=5\nc=5+5=0</think>5,0<eos>');
  });
});
