import { Rng } from '@rred/core';
import { drawToken } from './draw';

const logits = [2, 1, 0.5, 0, -1, -3];

function softmax(xs: number[], temperature = 1): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp((x - m) / temperature));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

function frequencies(n: number, temperature: number, topP: number): number[] {
  const rng = new Rng(17);
  const counts = new Array(logits.length).fill(0);
  for (let i = 0; i < n; i++) counts[drawToken(logits, { temperature, topP, maxNewTokens: 1, stopToken: 0 }, rng).token]++;
  return counts.map((c) => c / n);
}

describe('drawToken', () => {
  it('reports the temperature-1 logprob and entropy whatever the sampling temperature', () => {
    const p = softmax(logits);
    const entropy = -p.reduce((s, q) => s + q * Math.log(q), 0);
    for (const temperature of [0, 0.5, 1, 2]) {
      const d = drawToken(logits, { temperature, topP: 0.9, maxNewTokens: 1, stopToken: 0 }, new Rng(1));
      expect(d.logprob).toBeCloseTo(Math.log(p[d.token]), 10);
      expect(d.entropy).toBeCloseTo(entropy, 10);
    }
  });

  it('samples softmax(logits / T) (n = 40000, |Δp| < 0.01 ≈ 4 standard errors)', () => {
    for (const temperature of [1, 0.5]) {
      const expected = softmax(logits, temperature);
      frequencies(40000, temperature, 1).forEach((f, i) => expect(Math.abs(f - expected[i])).toBeLessThan(0.01));
    }
  });

  it('keeps only the smallest most-likely set reaching topP, renormalised', () => {
    const p = softmax(logits); // ≈ [0.53, 0.20, 0.12, 0.07, 0.03, 0.004]
    const topP = p[0] + p[1] + 0.01; // needs the third token too
    const kept = p.slice(0, 3);
    const z = kept.reduce((a, b) => a + b, 0);
    const f = frequencies(40000, 1, topP);
    kept.forEach((q, i) => expect(Math.abs(f[i] - q / z)).toBeLessThan(0.01));
    expect(f.slice(3).every((x) => x === 0)).toBe(true);
  });

  it('refuses NaN logits', () => {
    expect(() => drawToken([0, NaN], { temperature: 1, topP: 1, maxNewTokens: 1, stopToken: 0 }, new Rng(1))).toThrow(/NaN/);
  });
});
