import { Rng } from '@rred/core';
import { generateProblem, generatorConfig } from './generate';
import { parseProblem } from './problem';
import { countSolutionOrders, isValidOrder, sampleSolutionOrder, solutionOrders } from './orders';
import { solutionText } from './solution';
import { answerOf } from './problem';

/** Brute force: every permutation checked for validity. */
function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}

describe('solution orders', () => {
  it('finds both orders of two independent steps', () => {
    const p = parseProblem('a=3+4;b=5*2;c=a+b;?c', 10);
    expect(countSolutionOrders(p)).toBe(2);
    expect(solutionOrders(p)).toEqual([[0, 1, 2], [1, 0, 2]]);
    expect(solutionText(p, [1, 0, 2])).toBe('b=5*2=0\na=3+4=7\nc=7+0=7');
  });

  it('a chain has one order', () => {
    expect(countSolutionOrders(parseProblem('a=1+1;b=a+1;c=b+1;?c', 10))).toBe(1);
  });

  it('count and enumeration agree with brute force, canonical first, all valid', () => {
    const cfg = generatorConfig({ minSteps: 1, maxSteps: 7, referenceRate: 0.4 });
    const rng = new Rng(2);
    for (let k = 0; k < 150; k++) {
      const p = generateProblem(rng, cfg);
      const brute = permutations(p.steps.length).filter((o) => isValidOrder(p, o));
      const listed = solutionOrders(p);
      expect(countSolutionOrders(p)).toBe(brute.length);
      expect(listed.length).toBe(brute.length);
      expect(listed[0]).toEqual(p.steps.map((_, i) => i));
      expect(new Set(listed.map((o) => o.join())).size).toBe(listed.length);
      for (const o of listed) {
        expect(isValidOrder(p, o)).toBe(true);
        // the last line of every valid order computes the answer
        expect(solutionText(p, o).split('\n').pop()).toMatch(new RegExp(`^${p.queries[0]}=.*=${answerOf(p)}$`));
      }
      expect(solutionOrders(p, 2).length).toBe(Math.min(2, brute.length));
    }
  });

  it('samples valid orders uniformly', () => {
    // a, b, c independent; d reads a, b; e reads d, c: c can go in any of 4 slots before e, a/b in
    // 2 orders: 8 orders
    const p = parseProblem('a=1+1;b=2+2;c=3+3;d=a+b;e=d+c;?e', 10);
    const n = countSolutionOrders(p);
    expect(n).toBe(8);
    const rng = new Rng(4);
    const counts = new Map<string, number>();
    const draws = 12000;
    for (let i = 0; i < draws; i++) {
      const o = sampleSolutionOrder(p, rng);
      expect(isValidOrder(p, o)).toBe(true);
      counts.set(o.join(), (counts.get(o.join()) ?? 0) + 1);
    }
    expect(counts.size).toBe(n);
    // each count ~ Binomial(12000, 1/8): sd ≈ 36; 5 sd tolerance
    for (const c of counts.values()) expect(Math.abs(c - draws / n)).toBeLessThan(181);
  });

  it('rejects invalid orders', () => {
    const p = parseProblem('a=3+4;b=a*2;?b', 10);
    expect(isValidOrder(p, [1, 0])).toBe(false);
    expect(isValidOrder(p, [0])).toBe(false);
    expect(isValidOrder(p, [0, 0])).toBe(false);
    expect(isValidOrder(p, [0, 2])).toBe(false);
  });
});
