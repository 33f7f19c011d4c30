import { answerOf, applyOp, dependencies, evaluate, parseProblem, problemText } from './problem';

describe('problem', () => {
  const text = 'a=3+4;b=a*2;c=5+b;?c';

  it('round-trips the text format', () => {
    expect(problemText(parseProblem(text, 10))).toBe(text);
  });

  it('evaluates modulo the modulus with non-negative remainders', () => {
    const p = parseProblem(text, 10);
    expect(Object.fromEntries(evaluate(p))).toEqual({ a: 7, b: 4, c: 9 });
    expect(answerOf(p)).toBe('9');
    expect(applyOp('-', 3, 7, 10)).toBe(6);
    expect(applyOp('*', 6, 6, 7)).toBe(1);
  });

  it('lists the steps each step reads', () => {
    expect(dependencies(parseProblem('a=1+2;b=3+4;c=a-b;d=c+c;?d', 10))).toEqual([[], [], [0, 1], [2]]);
  });

  it('rejects text outside the format, naming the source', () => {
    expect(() => parseProblem('a=3+4', 10, 'x.jsonl:3')).toThrow(/x\.jsonl:3.*end with/);
    expect(() => parseProblem('a=b+4;b=1+1;?b', 10)).toThrow(/b used before/);
    expect(() => parseProblem('a=3/4;?a', 10)).toThrow(/not '<var>=<operand><op><operand>'/);
    expect(() => parseProblem('a=3+4;a=1+1;?a', 10)).toThrow(/defined twice/);
    expect(() => parseProblem('a=3+4;?z', 10)).toThrow(/z is not defined/);
  });
});
