import { Rng } from '@rred/core';
import { compositeForm } from './composite';
import { generateProblem, generatorConfig } from './generate';
import { parseProblem, problemText } from './problem';
import { sftConfig, sftExample } from './sft';
import { solutionText, stepLine } from './solution';
import { firstUncorrectedError, tokenSpanOfChars } from './step-oracle';

// a=3+4;b=a-2;c=5+b;d=c*a;?d  →  a=7, b=5, c=0, d=0
const problem = parseProblem('a=3+4;b=a-2;c=5+b;d=c*a;?d', 10);
const correct = solutionText(problem); // a=3+4=7\nb=7-2=5\nc=5+5=0\nd=0*7=0
const lines = correct.split('\n');
const join = (...ls: string[]) => ls.join('\n');
/** The span of line i of a thinking text. */
const spanOf = (thinking: string, i: number) => {
  const start = thinking.split('\n').slice(0, i).join('\n').length + (i > 0 ? 1 : 0);
  return { start, end: start + thinking.split('\n')[i].length };
};

describe('firstUncorrectedError', () => {
  it('a correct trace has none (with or without a trailing newline)', () => {
    expect(correct).toBe('a=3+4=7\nb=7-2=5\nc=5+5=0\nd=0*7=0');
    expect(firstUncorrectedError(problem, correct)).toBeNull();
    expect(firstUncorrectedError(problem, `${correct}\n`)).toBeNull();
    expect(firstUncorrectedError(problem, '')).toBeNull();
  });

  it('a wrong result: that line, and not the lines that propagate it', () => {
    const thinking = join(lines[0], stepLine('b', 7, '-', 2, 4), stepLine('c', 5, '+', 4, 9), stepLine('d', 9, '*', 7, 3));
    expect(firstUncorrectedError(problem, thinking)).toEqual({ line: 1, ...spanOf(thinking, 1), kind: 'wrong-result', variable: 'b' });
    expect(thinking.slice(8, 15)).toBe('b=7-2=4');
  });

  it('a wrong copied operand: the line that copies it, with the arithmetic right on the wrong value', () => {
    const thinking = join(lines[0], stepLine('b', 8, '-', 2, 6), stepLine('c', 5, '+', 6, 1), stepLine('d', 1, '*', 7, 7));
    expect(firstUncorrectedError(problem, thinking)).toEqual({ line: 1, ...spanOf(thinking, 1), kind: 'wrong-operand', variable: 'b' });
    // an operand propagated from an earlier wrong line is a wrong operand too (here b is right, c's copy of it is not)
    const later = join(lines[0], lines[1], stepLine('c', 5, '+', 6, 1), stepLine('d', 1, '*', 7, 7));
    expect(firstUncorrectedError(problem, later)).toMatchObject({ line: 2, kind: 'wrong-operand', variable: 'c' });
  });

  it('a wrong operator', () => {
    const thinking = join(lines[0], stepLine('b', 7, '+', 2, 9), lines[2]);
    expect(firstUncorrectedError(problem, thinking)).toMatchObject({ line: 1, kind: 'wrong-operator', variable: 'b' });
  });

  it('a corrected line is not an error; the first uncorrected one after it is', () => {
    const fixed = join(lines[0], 'b=7-2=4', 'wait b=7-2=5', lines[2], lines[3]);
    expect(firstUncorrectedError(problem, fixed)).toBeNull();
    // corrected, but c still reads the wrong b: c is the first uncorrected error
    const ignored = join(lines[0], 'b=7-2=4', 'wait b=7-2=5', 'c=5+4=9', 'd=9*7=3');
    expect(firstUncorrectedError(problem, ignored)).toEqual({ line: 3, ...spanOf(ignored, 3), kind: 'wrong-operand', variable: 'c' });
    // a wrong correction corrects nothing and is itself wrong; a second, right one corrects both
    const wrongWait = join(lines[0], 'b=7-2=4', 'wait b=7-2=3', lines[2], lines[3]);
    expect(firstUncorrectedError(problem, wrongWait)).toMatchObject({ line: 1, kind: 'wrong-result' });
    expect(firstUncorrectedError(problem, join(lines[0], 'b=7-2=4', 'wait b=7-2=3', 'wait b=7-2=5', lines[2], lines[3]))).toBeNull();
    // the correction must come later, with the marker, and for the same variable
    expect(firstUncorrectedError(problem, join(lines[0], 'wait b=7-2=5', 'b=7-2=4', lines[2], lines[3]))).toMatchObject({ line: 2 });
    expect(firstUncorrectedError(problem, join(lines[0], 'b=7-2=4', 'b=7-2=5', lines[2], lines[3]))).toMatchObject({ line: 1 });
    expect(firstUncorrectedError(problem, join(lines[0], 'b=7-2=4', 'wait c=5+5=0', lines[3]))).toMatchObject({ line: 1 });
  });

  it('an error that cancels out by coincidence is not an error: the state stays right', () => {
    // d = c*a = 0*7 = 0: copying a as 3 still gives 0, so every variable keeps its true value
    expect(firstUncorrectedError(problem, join(lines[0], lines[1], lines[2], 'd=0*3=0'))).toBeNull();
    // two slips that undo each other (operand 6 for 5, arithmetic 5+6=0) leave c right too
    expect(firstUncorrectedError(problem, join(lines[0], lines[1], 'c=5+6=0', lines[3]))).toBeNull();
  });

  it('values compare as numbers: 05 is 5, an unreduced 10 is not 0', () => {
    expect(firstUncorrectedError(problem, join(lines[0], 'b=7-2=05', lines[2], lines[3]))).toBeNull();
    expect(firstUncorrectedError(problem, join(lines[0], lines[1], 'c=5+5=10', lines[3]))).toMatchObject({ line: 2, kind: 'wrong-result' });
  });

  it('a malformed line is an error nothing corrects; an unknown variable too; empty lines are skipped', () => {
    const partial = join(lines[0], lines[1], 'c=5+');
    expect(firstUncorrectedError(problem, partial)).toEqual({ line: 2, start: 16, end: 20, kind: 'malformed', variable: null });
    expect(firstUncorrectedError(problem, join(lines[0], 'b=a-2=5', lines[1], lines[2], lines[3]))).toMatchObject({
      line: 1,
      kind: 'malformed',
    });
    expect(firstUncorrectedError(problem, join(lines[0], 'x=1+1=2', lines[1]))).toMatchObject({
      line: 1,
      kind: 'unknown-variable',
      variable: 'x',
    });
    expect(firstUncorrectedError(problem, join(lines[0], 'x=1+1=2', 'wait x=1+1=2', lines[1]))).toMatchObject({ line: 1 });
    const gap = join(lines[0], '', 'b=7-2=4');
    expect(firstUncorrectedError(problem, gap)).toEqual({ line: 2, start: 9, end: 16, kind: 'wrong-result', variable: 'b' });
  });

  it('a composite-query problem (?c,f) is judged on the same steps', () => {
    const base = generateProblem(new Rng(3), generatorConfig({ minSteps: 6, maxSteps: 6 }));
    const asked = compositeForm(base, 3, new Rng(4));
    expect(problemText(asked)).toMatch(/;\?[a-z],[a-z],f$/);
    const good = solutionText(asked);
    expect(firstUncorrectedError(asked, good)).toBeNull();
    // break the line of the first queried (earlier) variable
    const q = asked.steps.findIndex((s) => s.name === asked.queries[0]);
    const ls = good.split('\n');
    ls[q] = ls[q].replace(/=(\d+)$/, (_, v: string) => `=${(Number(v) + 1) % 10}`);
    const bad = ls.join('\n');
    expect(firstUncorrectedError(asked, bad)).toEqual({ line: q, ...spanOf(bad, q), kind: 'wrong-result', variable: asked.queries[0] });
  });

  it("agrees with the SFT generator's own error span on generated problems", () => {
    const gen = generatorConfig({});
    const uncorrected = sftConfig({ errorRate: 1, correctionRate: 0 });
    const corrected = sftConfig({ errorRate: 1, correctionRate: 1, alternativeOrderRate: 0.5 });
    let operandErrors = 0;
    for (let i = 0; i < 200; i++) {
      const p = generateProblem(new Rng(1000 + i), gen);
      const wrong = sftExample(p, uncorrected, new Rng(i));
      const found = firstUncorrectedError(p, wrong.thinking);
      // the default operators + and - are bijective mod 10, so no error cancels: the oracle finds the span
      expect(found && [found.start, found.end]).toEqual(wrong.errorSpan);
      if (found?.kind === 'wrong-operand') operandErrors++;
      expect(firstUncorrectedError(p, sftExample(p, corrected, new Rng(i)).thinking)).toBeNull();
      expect(firstUncorrectedError(p, sftExample(p, sftConfig({ errorRate: 0 }), new Rng(i)).thinking)).toBeNull();
    }
    expect(operandErrors).toBeGreaterThan(40); // both kinds occur (operandErrorRate 0.5 among steps that read a variable)
    expect(operandErrors).toBeLessThan(160);
  });
});

describe('tokenSpanOfChars', () => {
  it('one character per token: the same span', () => {
    const texts = Array.from('a=3+4=7\nb=7-2=4');
    expect(tokenSpanOfChars(texts, 8, 15)).toEqual([8, 15]);
    expect(tokenSpanOfChars([...texts, '</think>', '5', '<eos>'], 0, 7)).toEqual([0, 7]);
  });

  it('a multi-character token before or inside the span shifts and widens it', () => {
    // a stray <eos> literal (one token, 5 characters) in the thinking
    const texts = ['a', '<eos>', 'b', '=', '1'];
    expect(tokenSpanOfChars(texts, 6, 9)).toEqual([2, 5]); // "b=1"
    expect(tokenSpanOfChars(texts, 3, 7)).toEqual([1, 3]); // partly inside counts
    expect(tokenSpanOfChars(texts, 0, 1)).toEqual([0, 1]);
  });

  it('refuses an empty span or one outside the text', () => {
    expect(() => tokenSpanOfChars(['a', 'b'], 1, 1)).toThrow(/non-empty and inside the text of 2 characters/);
    expect(() => tokenSpanOfChars(['a', 'b'], 1, 3)).toThrow(RangeError);
    expect(() => tokenSpanOfChars(['a', 'b'], -1, 1)).toThrow(RangeError);
  });
});
