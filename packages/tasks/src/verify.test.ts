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

describe('verify: composite answers (`?c,f` → `6,9`)', () => {
  const think = 'c=9+7=6\nf=4+5=9';
  const cases: [string, number, string, boolean[]][] = [
    ['6,9', 1, 'correct', [true, true]],
    ['06, 9', 1, 'correct', [true, true]], // integers by value, whitespace around a part allowed
    ['6,8', 0, 'wrong', [true, false]],
    ['5,9', 0, 'wrong', [false, true]],
    ['6', 0, 'malformed', [true, false]], // a missing part
    ['6,', 0, 'malformed', [true, false]],
    ['6,9,1', 0, 'malformed', [true, true]], // an extra part
    ['6,9x', 0, 'malformed', [true, false]], // extra text
    ['6,9 is it', 0, 'malformed', [true, false]],
    ['c=6,f=9', 0, 'malformed', [false, false]],
  ];
  it.each(cases)('answer %j → reward %d, %s, parts %j', (answer, reward, reason, parts) => {
    const r = verify(`${think}</think>${answer}<eos>`, '6,9', true);
    expect(r).toEqual({ reward, reason, answer, parts });
  });

  it('three parts, and the format checks before the parts', () => {
    expect(verify(`${think}</think>1,2,3<eos>`, '1,2,3', true).reward).toBe(1);
    expect(verify(`${think}</think>1,0,3<eos>`, '1,2,3', true).parts).toEqual([true, false, true]);
    expect(verify(`${think}</think>6,9<eos>`, '6,9', false).reason).toBe('truncated');
    expect(verify(`${think}</think><eos>`, '6,9', true).reason).toBe('no-answer');
  });

  it('a single expected answer never gets parts', () => {
    expect(verify(`${think}</think>6,9<eos>`, '9', true)).toEqual({ reward: 0, reason: 'malformed', answer: '6,9' });
  });
});
