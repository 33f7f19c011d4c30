import { Rng } from '@rred/core';
import { generateProblem, generatorConfig } from './generate';
import { dependencies, parseProblem, problemText } from './problem';

/** Indices of all steps the query depends on (transitively), including itself. */
function ancestorsOfQuery(deps: number[][]): Set<number> {
  const seen = new Set<number>();
  const stack = [deps.length - 1];
  while (stack.length) {
    const i = stack.pop() as number;
    if (seen.has(i)) continue;
    seen.add(i);
    stack.push(...deps[i]);
  }
  return seen;
}

describe('generateProblem', () => {
  it('is a pure function of the seed', () => {
    const cfg = generatorConfig();
    const draw = (seed: number) => Array.from({ length: 20 }, (_, i) => problemText(generateProblem(new Rng(seed).fork(i), cfg)));
    expect(draw(5)).toEqual(draw(5));
    expect(draw(5)).not.toEqual(draw(6));
  });

  it('respects the knobs and makes the query depend on every step', () => {
    const cfg = generatorConfig({ minSteps: 2, maxSteps: 9, operandMax: 4, modulus: 7, operators: ['*', '-'], referenceRate: 0.8 });
    const rng = new Rng(11);
    const lengths = new Set<number>();
    for (let k = 0; k < 2000; k++) {
      const p = generateProblem(rng, cfg);
      lengths.add(p.steps.length);
      expect(p.steps.length).toBeGreaterThanOrEqual(2);
      expect(p.steps.length).toBeLessThanOrEqual(9);
      expect(p.queries).toEqual([p.steps[p.steps.length - 1].name]);
      for (const s of p.steps) {
        expect(['*', '-']).toContain(s.op);
        for (const o of [s.left, s.right]) if (o.kind === 'num') expect(o.value).toBeLessThanOrEqual(4);
        if (s.left.kind === 'var' && s.right.kind === 'var') expect(s.left.name).not.toBe(s.right.name);
      }
      expect(ancestorsOfQuery(dependencies(p)).size).toBe(p.steps.length);
      // the text parses back to the same problem
      expect(parseProblem(problemText(p), 7)).toEqual(p);
    }
    expect([...lengths].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('rejects bad knobs with the field named', () => {
    expect(() => generatorConfig({ minSteps: 5, maxSteps: 3 })).toThrow(/minSteps \(5\) must be <= maxSteps \(3\)/);
    expect(() => generatorConfig({ modulus: 1 })).toThrow(/modulus: got 1/);
    expect(() => generatorConfig({ operators: ['/'] })).toThrow(/operators\.0/);
    expect(() => generatorConfig({ steps: 3 })).toThrow(/unknown key 'steps'/);
  });
});
