import { Rng } from './rng';

describe('Rng', () => {
  it('is a pure function of its seed', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(xs);
  });

  it('draws uniforms with the right mean and range', () => {
    const rng = new Rng(1);
    let sum = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      sum += u;
    }
    // mean of U(0,1) has sd 1/sqrt(12 n) ≈ 0.002; 5 sd tolerance
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.01);
  });

  it('forks independent streams without advancing the parent', () => {
    const parent = new Rng(7);
    const child1 = parent.fork('mc');
    const first = parent.nextUint32();
    const again = new Rng(7);
    again.fork('mc');
    expect(again.nextUint32()).toBe(first);
    expect(child1.nextUint32()).toBe(new Rng(7).fork('mc').nextUint32());
    expect(new Rng(7).fork('a').nextUint32()).not.toBe(new Rng(7).fork('b').nextUint32());
  });

  it('samples categorical draws in proportion to weights', () => {
    const rng = new Rng(3);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30000; i++) counts[rng.categorical([1, 2, 0])]++;
    expect(counts[2]).toBe(0);
    expect(counts[1] / counts[0]).toBeGreaterThan(1.85);
    expect(counts[1] / counts[0]).toBeLessThan(2.15);
  });

  it('counts its draws (a fresh generator has made none; categorical takes one)', () => {
    const rng = new Rng(5);
    expect(rng.draws).toBe(0);
    rng.categorical([1, 2, 3]);
    rng.normal();
    expect(rng.draws).toBe(3);
    expect(rng.fork('x').draws).toBe(0);
  });

  it('rejects a non-integer seed and empty ranges', () => {
    expect(() => new Rng(1.5)).toThrow(/integer/);
    expect(() => new Rng(1).int(3, 2)).toThrow(/empty range/);
    expect(() => new Rng(1).categorical([0, 0])).toThrow(/positive sum/);
  });
});

describe('Rng seeds', () => {
  it('refuses seeds outside [0, 2^32), which would alias a seed inside', () => {
    for (const bad of [-1, 2 ** 32, 2 ** 32 + 1, -(2 ** 32) + 1, 1.5, NaN, Infinity]) expect(() => new Rng(bad)).toThrow(RangeError);
    expect(() => new Rng(0)).not.toThrow();
    expect(() => new Rng(2 ** 32 - 1)).not.toThrow();
  });

  it('keeps the fork streams of the earlier signed-seed fork (golden values)', () => {
    const r = new Rng(7).fork('mc');
    expect([r.nextUint32(), r.nextUint32()]).toEqual([2492269002, 1409841429]);
    expect(new Rng(7).fork('mc').fork(3).nextUint32()).toBe(745740547);
  });
});
