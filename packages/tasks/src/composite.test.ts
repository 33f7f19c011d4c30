import { Rng } from '@rred/core';
import { compositeForm, isComposite } from './composite';
import { generateProblem, generatorConfig } from './generate';
import { answerOf, evaluate, parseProblem, problemText } from './problem';

describe('compositeForm', () => {
  it('asks earlier variables plus the last, in definition order, and round-trips through the text', () => {
    const cfg = generatorConfig({ minSteps: 3, maxSteps: 8 });
    const rng = new Rng(4);
    for (let i = 0; i < 200; i++) {
      const p = generateProblem(rng, cfg);
      const parts = 2 + (i % Math.min(2, p.steps.length - 1));
      const c = compositeForm(p, parts, rng);
      const names = p.steps.map((s) => s.name);
      expect(c.queries.length).toBe(parts);
      expect(c.queries[parts - 1]).toBe(names[names.length - 1]);
      const idx = c.queries.map((q) => names.indexOf(q));
      idx.slice(1).forEach((v, j) => expect(v).toBeGreaterThan(idx[j]));
      expect(c.steps).toBe(p.steps);
      expect(isComposite(c)).toBe(true);
      const values = evaluate(p);
      expect(answerOf(c)).toBe(c.queries.map((q) => String(values.get(q))).join(','));
      expect(parseProblem(problemText(c), 10)).toEqual(c);
    }
  });

  it('the example of the issue', () => {
    const p = parseProblem('a=4+3;b=a+8;c=9+7;d=c+b;e=d-a;f=e+b;?c,f', 10);
    expect(p.queries).toEqual(['c', 'f']);
    expect(answerOf(p)).toBe('6,9');
    expect(isComposite(parseProblem('a=1+2;b=a+1;?b', 10))).toBe(false);
  });

  it('rejects bad part counts and bad composite queries', () => {
    const p = parseProblem('a=1+2;b=a+1;?b', 10);
    expect(() => compositeForm(p, 3, new Rng(1))).toThrow(/parts must be an integer in 2..2 .*got 3/);
    expect(() => parseProblem('a=1+2;b=a+1;?b,a', 10)).toThrow(/definition order/);
    expect(() => parseProblem('a=1+2;b=a+1;?a,a', 10)).toThrow(/definition order/);
    expect(() => parseProblem('a=1+2;b=a+1;?a,', 10)).toThrow(/to end with/);
    expect(() => parseProblem('a=1+2;b=a+1;?a,z', 10)).toThrow(/z is not defined/);
  });
});
