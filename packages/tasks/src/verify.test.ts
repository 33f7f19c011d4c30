import { extractAnswer, verify } from './verify';

describe('verify', () => {
  const think = 'a=3+4=7\nb=7*2=4';
  const cases: [string, string, boolean, number, string][] = [
    [`${think}</think>4<eos>`, '4', true, 1, 'correct'],
    [`${think}</think>04<eos>`, '4', true, 1, 'correct'],
    [`${think}</think> 4 <eos>`, '4', true, 1, 'correct'],
    [`${think}</think>5<eos>`, '4', true, 0, 'wrong'],
    [`${think}</think>-4<eos>`, '4', true, 0, 'wrong'],
    [`${think}</think><eos>`, '4', true, 0, 'no-answer'],
    [`${think}</think>  \n<eos>`, '4', true, 0, 'no-answer'],
    [`${think}</think>4`, '4', true, 1, 'correct'], // stopped for another reason, answer still readable
    [`${think}<eos>`, '4', true, 0, 'malformed'], // never closed thinking
    [`${think}</think>4</think>4<eos>`, '4', true, 0, 'malformed'],
    [`<think>${think}</think>4<eos>`, '4', true, 0, 'malformed'],
    [`${think}</think>a=4<eos>`, '4', true, 0, 'malformed'],
    [`${think}</think>4<pad><eos>`, '4', true, 0, 'malformed'],
    [`${think}<eos></think>4`, '4', true, 0, 'malformed'],
    [`${think}</think>4<eos>7`, '4', true, 0, 'malformed'],
    ['', '4', true, 0, 'malformed'],
    [`${think}</think>4<eos>`, '4', false, 0, 'truncated'], // hit the length limit: truncated even if right
    [`${think}\nc=1+`, '4', false, 0, 'truncated'],
    [`${think}</think>\\frac{1}{2}<eos>`, '\\frac{1}{2}', true, 1, 'correct'], // non-integer answers: exact text
    [`${think}</think>1/2<eos>`, '\\frac{1}{2}', true, 0, 'wrong'],
  ];

  it.each(cases)('%j expecting %j (stopped=%s) → reward %d, %s', (text, expected, stopped, reward, reason) => {
    const r = verify(text, expected, stopped);
    expect(r.reward).toBe(reward);
    expect(r.reason).toBe(reason);
  });

  it('extracts the answer text', () => {
    expect(extractAnswer(`${think}</think>4<eos>`)).toBe('4');
    expect(extractAnswer(`${think}</think>12`)).toBe('12');
    expect(extractAnswer(think)).toBeNull();
    expect(verify(`${think}</think>7<eos>`, '4', true).answer).toBe('7');
  });
});
