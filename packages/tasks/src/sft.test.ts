import { Rng } from '@rred/core';
import { generateProblem, generatorConfig } from './generate';
import { answerOf, parseProblem, type Problem } from './problem';
import { isValidOrder } from './orders';
import { sftConfig, sftExample, sftExamples } from './sft';
import { solutionText, TASK_ALPHABET } from './solution';

const LINE_RE = /^(?:wait )?([a-z])=(\d+)([+\-*])(\d+)=(\d+)$/;

/** Re-derives the step order from the thinking lines, skipping the line a `wait` replaces. */
function effectiveLines(thinking: string): string[] {
  const lines = thinking.split('\n');
  const out: string[] = [];
  for (const l of lines) {
    if (l.startsWith('wait ')) out[out.length - 1] = l.slice(5);
    else out.push(l);
  }
  return out;
}

function problems(n: number, seed: number): Problem[] {
  const cfg = generatorConfig();
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => generateProblem(rng, cfg));
}

describe('sft examples', () => {
  it('are deterministic for a seed', () => {
    const ps = problems(50, 1);
    const cfg = sftConfig();
    expect(sftExamples(ps, cfg, new Rng(9))).toEqual(sftExamples(ps, cfg, new Rng(9)));
    expect(sftExamples(ps, cfg, new Rng(9))).not.toEqual(sftExamples(ps, cfg, new Rng(10)));
  });

  it('with no errors and no alternatives reproduce the canonical solution', () => {
    const ps = problems(30, 2);
    const ex = sftExamples(ps, sftConfig({ errorRate: 0, alternativeOrderRate: 0 }), new Rng(1));
    ex.forEach((e, i) => {
      expect(e.kind).toBe('canonical');
      expect(e.thinking).toBe(solutionText(ps[i]));
      expect(e.answer).toBe(answerOf(ps[i]));
    });
  });

  it('mix kinds at the configured rates, and every corrected or clean example solves the problem', () => {
    const ps = problems(1500, 3);
    const cfg = sftConfig({ alternativeOrderRate: 0.3, errorRate: 0.2, correctionRate: 0.75 });
    const ex = sftExamples(ps, cfg, new Rng(5));
    const kinds = { canonical: 0, alternative: 0, corrected: 0, uncorrected: 0 };
    let outside = '';
    ex.forEach((e, i) => {
      const p = ps[i];
      kinds[e.kind]++;
      outside += [...e.prompt + e.thinking + e.answer].filter((ch) => !TASK_ALPHABET.includes(ch)).join('');
      const lines = effectiveLines(e.thinking);
      const order = lines.map((l) => p.steps.findIndex((s) => s.name === (LINE_RE.exec(l) as RegExpExecArray)[1]));
      expect(isValidOrder(p, order)).toBe(true);
      expect(e.alternativeOrder).toBe(!order.every((v, j) => v === j));
      if (e.kind === 'uncorrected') {
        expect(e.thinking).not.toContain('wait');
        expect(e.errorSpan).not.toBeNull();
        return;
      }
      expect(e.answer).toBe(answerOf(p));
      // the lines after corrections are exactly the solution for that order
      expect(lines.join('\n')).toBe(solutionText(p, order));
      if (e.kind === 'corrected') {
        const [s, t] = e.errorSpan as [number, number];
        const wrong = e.thinking.slice(s, t);
        expect(e.thinking.slice(t)).toMatch(/^\nwait /);
        expect(lines).not.toContain(wrong);
      }
    });
    // expected fractions: error 0.2 (corrected 0.15, uncorrected 0.05); binomial sd over 1500 ≤ 0.0093, 5 sd
    expect(Math.abs(kinds.corrected / 1500 - 0.15)).toBeLessThan(0.047);
    expect(Math.abs(kinds.uncorrected / 1500 - 0.05)).toBeLessThan(0.028);
    expect(kinds.alternative).toBeGreaterThan(0);
    expect(outside).toBe('');
  });

  it('an uncorrected error propagates its wrong value into later lines', () => {
    const p = parseProblem('a=3+4;b=a+2;c=5+b;?c', 10);
    const cfg = sftConfig({ errorRate: 1, correctionRate: 0, operandErrorRate: 0, alternativeOrderRate: 0 });
    for (let s = 0; s < 20; s++) {
      const e = sftExample(p, cfg, new Rng(s));
      const lines = e.thinking.split('\n').map((l) => LINE_RE.exec(l) as RegExpExecArray);
      // each line's arithmetic reads the previous line's (possibly wrong) result
      expect(Number(lines[1][2])).toBe(Number(lines[0][5]));
      expect(Number(lines[2][4])).toBe(Number(lines[1][5]));
      expect(e.answer).toBe(lines[2][5]);
      // + is a bijection in each operand, so a wrong result always changes the answer
      expect(e.answer).not.toBe(answerOf(p));
    }
  });

  it('the hardest examples fit a 150-character context with the four special tokens', () => {
    const cfg = generatorConfig({ minSteps: 8, maxSteps: 8 });
    const rng = new Rng(8);
    const ps = Array.from({ length: 500 }, () => generateProblem(rng, cfg));
    for (const e of sftExamples(ps, sftConfig({ errorRate: 1 }), new Rng(1))) {
      expect(e.prompt.length + e.thinking.length + e.answer.length + 4).toBeLessThanOrEqual(150);
    }
  });

  it('early exits cut at a line boundary and answer with the true answer', () => {
    const ps = problems(400, 11);
    const cfg = sftConfig({ earlyExitRate: 0.5, errorRate: 0.3 });
    const full = sftExamples(ps, sftConfig({ errorRate: 0.3 }), new Rng(3));
    let early = 0;
    const cuts = new Set<number>();
    sftExamples(ps, cfg, new Rng(3)).forEach((e, i) => {
      if (!e.earlyExit) {
        expect(e).toEqual({ ...full[i], earlyExit: false, untrainedSpans: [] }); // the early-exit draw comes after the rest
        return;
      }
      early++;
      expect(e.answer).toBe(answerOf(ps[i]));
      const kept = e.thinking === '' ? [] : e.thinking.slice(0, -1).split('\n');
      if (e.thinking !== '') expect(e.thinking.endsWith('\n')).toBe(true);
      const lines = full[i].thinking.split('\n');
      expect(kept.length).toBeLessThan(lines.length);
      expect(kept).toEqual(lines.slice(0, kept.length));
      cuts.add(kept.length);
      if (e.errorSpan) expect(e.errorSpan).toEqual(full[i].errorSpan);
      else if (full[i].errorSpan) expect((full[i].errorSpan as [number, number])[1]).toBeGreaterThan(e.thinking.length);
    });
    // binomial(400, 0.5): sd 10, 5 sd
    expect(Math.abs(early - 200)).toBeLessThan(50);
    expect(cuts.has(0)).toBe(true); // s_0: no thinking at all
    expect(Math.max(...cuts)).toBeGreaterThanOrEqual(6);
  });

  it("errorLineLoss 'mask' lists the wrong line, and only it, as untrained", () => {
    const ps = problems(200, 12);
    const ex = sftExamples(ps, sftConfig({ errorRate: 1, errorLineLoss: 'mask' }), new Rng(2));
    for (const e of ex) {
      expect(e.untrainedSpans).toEqual([e.errorSpan]);
      const [s, t] = e.errorSpan as [number, number];
      expect(e.thinking.slice(s, t)).toMatch(/^[a-z]=\d+[+\-*]\d+=\d+$/);
    }
    expect(sftExamples(ps, sftConfig({ errorRate: 1 }), new Rng(2)).every((e) => e.untrainedSpans.length === 0)).toBe(true);
  });

  it('composite examples ask 2..compositeMaxParts values and fit the 160-token context', () => {
    const cfg = generatorConfig({ minSteps: 3, maxSteps: 8 });
    const rng = new Rng(13);
    const ps = Array.from({ length: 800 }, () => generateProblem(rng, cfg));
    const parts = new Set<number>();
    let composite = 0;
    for (const e of sftExamples(ps, sftConfig({ compositeRate: 0.5, errorRate: 0.5 }), new Rng(4))) {
      const asked = e.prompt.slice(e.prompt.lastIndexOf('?') + 1).split(',');
      if (asked.length > 1) composite++;
      parts.add(asked.length);
      expect(e.answer.split(',').length).toBe(asked.length);
      expect(e.prompt.length + e.thinking.length + e.answer.length + 4).toBeLessThanOrEqual(160);
    }
    expect([...parts].sort()).toEqual([1, 2, 3]);
    expect(Math.abs(composite / 800 - 0.5)).toBeLessThan(0.09); // sd 0.018, 5 sd
  });

  it('rejects unknown keys and out-of-range rates', () => {
    expect(() => sftConfig({ errRate: 0.1 })).toThrow(/unknown key 'errRate'/);
    expect(() => sftConfig({ errorRate: 2 })).toThrow(/errorRate: got 2/);
  });
});
