import { initEngine } from '@rred/engine';
import { Tokenizer } from '@rred/lm';
import { COMPOSITE_TASK_ALPHABET } from '@rred/tasks';
import { buildBatch, disposeBatch } from './batching';
import { tokenizeExample } from './task-examples';

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('tokenizeExample + buildBatch: untrained positions', () => {
  const tok = Tokenizer.fromAlphabet(COMPOSITE_TASK_ALPHABET);
  const prompt = 'a=3+4;b=a-2;c=5+b;?b,c';

  function trainedTargets(example: Parameters<typeof tokenizeExample>[1]): { targets: number[]; trained: number[] } {
    const ex = tokenizeExample(tok, example);
    const batch = buildBatch([ex], 160, tok.pad);
    const targets = Array.from(batch.targets.dataSync());
    const mask = Array.from(batch.mask.dataSync());
    disposeBatch(batch);
    return { targets, trained: targets.filter((_, t) => mask[t] === 1) };
  }

  it("an early exit's </think> and only it gets no loss", () => {
    const thinking = 'a=3+4=7\nb=7-2=5\n';
    const full = trainedTargets({ prompt, thinking, answer: '5,0' });
    const early = trainedTargets({ prompt, thinking, answer: '5,0', earlyExit: true });
    const completion = tok.encode(`${thinking}</think>5,0<eos>`);
    expect(full.trained).toEqual(completion);
    const at = completion.indexOf(tok.endThink);
    expect(early.trained).toEqual([...completion.slice(0, at), ...completion.slice(at + 1)]);
    expect(early.targets).toEqual(full.targets); // still an input and a target row, just not trained
  });

  it('an early exit at s_0 (no thinking) masks the </think> right after <think>', () => {
    const early = trainedTargets({ prompt, thinking: '', answer: '5,0', earlyExit: true });
    expect(early.trained).toEqual(tok.encode('5,0<eos>'));
  });

  it('a masked wrong line drops exactly its characters from the loss, keeping the wait correction', () => {
    const thinking = 'a=3+4=7\nb=7-2=4\nwait b=7-2=5\nc=5+5=0';
    const span: [number, number] = [8, 15];
    expect(thinking.slice(...span)).toBe('b=7-2=4');
    const masked = trainedTargets({ prompt, thinking, answer: '5,0', untrainedSpans: [span] });
    expect(tok.decode(masked.trained)).toBe('a=3+4=7\n\nwait b=7-2=5\nc=5+5=0</think>5,0<eos>');
  });
});
