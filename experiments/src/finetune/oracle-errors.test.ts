import { Tokenizer, type Trace } from '@rred/lm';
import { TASK_ALPHABET, THINK_CLOSE, type TaskRecord } from '@rred/tasks';
import { firstErrorToken } from './oracle-errors';

const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
const record = {
  id: 'p',
  problem: 'a=3+4;b=a-2;?b',
  answer: '5',
  solution: 'a=3+4=7\nb=a-2=5',
  split: 'train',
  meta: {},
} as unknown as TaskRecord;
const trace = (thinking: string): Trace => {
  const completion = tokenizer.encode(`${thinking}${THINK_CLOSE}5<eos>`);
  return {
    problemId: 'p',
    prompt: [],
    completion,
    logprobs: [],
    entropies: [],
    thinkEnd: completion.indexOf(tokenizer.endThink),
    answer: null,
    reward: 0,
    text: '',
  };
};

describe('firstErrorToken', () => {
  const locate = firstErrorToken(tokenizer, [record]);
  it('points at the first token of the first uncorrected wrong line', () => {
    expect(locate(trace('a=3+4=7\nb=7-2=6'))).toBe('a=3+4=7\n'.length);
    expect(locate(trace('a=3+4=8\nb=8-2=6'))).toBe(0);
  });
  it('is null without an uncorrected error, and names an unknown problem', () => {
    expect(locate(trace('a=3+4=7\nb=7-2=5'))).toBeNull();
    expect(locate(trace('a=3+4=8\nwait a=3+4=7\nb=7-2=5'))).toBeNull();
    expect(() => locate({ ...trace('a=3+4=7'), problemId: 'q' })).toThrow(/no training problem 'q'/);
  });
});
