import { Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { AdamW, clipGradNorm, type AdamWOptions } from './optimizer';

/**
 * The AdamW update written out with tf ops exactly as optimizer.ts did before it used the engine's fused
 * `adamwStep`: bias-corrected moments, decoupled decay on rank ≥ 2 variables only.
 */
class AdamWBefore {
  private step = 0;
  private readonly m = new Map<number, tf.Tensor>();
  private readonly v = new Map<number, tf.Tensor>();
  constructor(private readonly o: AdamWOptions) {}

  apply(variables: tf.Variable[], grads: Record<string, tf.Tensor>, lr: number): void {
    this.step += 1;
    const { beta1, beta2, epsilon, weightDecay } = this.o;
    const c1 = 1 - Math.pow(beta1, this.step);
    const c2 = 1 - Math.pow(beta2, this.step);
    variables.forEach((variable, i) => {
      const g = grads[variable.name];
      if (!g) return;
      const m = this.m.get(i) ?? tf.zerosLike(variable);
      const v = this.v.get(i) ?? tf.zerosLike(variable);
      const [mNew, vNew] = tf.tidy(() => [
        tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1)),
        tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2)),
      ]);
      tf.tidy(() => {
        const update = tf.div(tf.div(mNew, c1), tf.add(tf.sqrt(tf.div(vNew, c2)), epsilon));
        let next = tf.sub(variable, tf.mul(update, lr));
        if (weightDecay > 0 && variable.rank >= 2) next = tf.sub(next, tf.mul(variable, lr * weightDecay));
        variable.assign(next);
      });
      tf.dispose([m, v]);
      this.m.set(i, mNew);
      this.v.set(i, vNew);
    });
  }

  dispose(): void {
    tf.dispose([...this.m.values(), ...this.v.values()]);
  }
}

function randomValues(rng: Rng, n: number, scale: number): Float32Array {
  return Float32Array.from({ length: n }, () => scale * rng.normal());
}

/** Largest |a − b| / max(|b|, 1) over all entries. */
function maxError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(Math.abs(b[i]), 1));
  return Number.isNaN(worst) ? Infinity : worst;
}

describe('AdamW (fused adamwStep)', () => {
  beforeAll(async () => {
    await initEngine({ quiet: true });
  });

  const shapes = [[16, 24], [24], [3, 4, 5], [1]];

  it.each([0, 0.05])('matches the previous tf-op update within 1e-5 over 6 steps (weight decay %s)', (weightDecay) => {
    const rng = new Rng(21);
    const options: AdamWOptions = { beta1: 0.9, beta2: 0.98, epsilon: 1e-8, weightDecay };
    const init = shapes.map((s) =>
      randomValues(
        rng,
        s.reduce((a, b) => a * b, 1),
        0.5,
      ),
    );
    const fresh = (tag: string) => shapes.map((s, i) => tf.variable(tf.tensor(init[i], s, 'float32'), true, `${tag}/p${i}`));
    const newVars = fresh('new');
    const oldVars = fresh('old');
    const fused = new AdamW(options);
    const reference = new AdamWBefore(options);
    for (let step = 0; step < 6; step++) {
      const lr = 1e-2 * (1 + step); // the schedule changes lr between steps
      // Variable #1 gets no gradient on odd steps (the update must skip it, moments untouched).
      const gradValues = shapes.map((s, i) =>
        i === 1 && step % 2
          ? null
          : randomValues(
              rng,
              s.reduce((a, b) => a * b, 1),
              2,
            ),
      );
      const grads = (vars: tf.Variable[]) =>
        Object.fromEntries(vars.flatMap((v, i) => (gradValues[i] ? [[v.name, tf.tensor(gradValues[i]!, shapes[i], 'float32')]] : [])));
      const gNew = grads(newVars);
      const gOld = grads(oldVars);
      fused.apply(newVars, gNew, lr);
      reference.apply(oldVars, gOld, lr);
      tf.dispose([...Object.values(gNew), ...Object.values(gOld)]);
    }
    expect(fused.stepCount).toBe(6);
    for (let i = 0; i < shapes.length; i++) {
      expect(maxError(newVars[i].dataSync(), oldVars[i].dataSync())).toBeLessThan(1e-5);
      // The update actually moved the parameters (the comparison above is not vacuous).
      expect(maxError(newVars[i].dataSync(), init[i])).toBeGreaterThan(1e-3);
    }
    fused.dispose();
    reference.dispose();
    tf.dispose([...newVars, ...oldVars]);
  });

  it('decays matrices only: with zero gradients a matrix shrinks by lr·wd and a bias stays', () => {
    const w = tf.variable(
      tf.tensor2d([
        [1, -2],
        [3, 4],
      ]),
      true,
      'decay/w',
    );
    const b = tf.variable(tf.tensor1d([5, -6]), true, 'decay/b');
    const opt = new AdamW({ beta1: 0.9, beta2: 0.999, epsilon: 1e-8, weightDecay: 0.1 });
    const grads = { [w.name]: tf.zerosLike(w), [b.name]: tf.zerosLike(b) };
    opt.apply([w, b], grads, 0.5);
    expect(maxError(w.dataSync(), [0.95, -1.9, 2.85, 3.8])).toBeLessThan(1e-6);
    expect(Array.from(b.dataSync())).toEqual([5, -6]);
    opt.dispose();
    tf.dispose([w, b, ...Object.values(grads)]);
  });

  it('state round-trips: a restored optimizer takes the same next step', () => {
    const rng = new Rng(22);
    const options: AdamWOptions = { beta1: 0.9, beta2: 0.99, epsilon: 1e-8, weightDecay: 0.01 };
    const start = randomValues(rng, 12, 1);
    const g1 = randomValues(rng, 12, 1);
    const g2 = randomValues(rng, 12, 1);
    const a = tf.variable(tf.tensor2d(start, [3, 4]), true, 'rt/a');
    const first = new AdamW(options);
    first.apply([a], { [a.name]: tf.tensor2d(g1, [3, 4]) }, 0.1);
    const b = tf.variable(a.clone(), true, 'rt/b');
    const second = new AdamW(options);
    second.setState(first.getState());
    first.apply([a], { [a.name]: tf.tensor2d(g2, [3, 4]) }, 0.1);
    second.apply([b], { [b.name]: tf.tensor2d(g2, [3, 4]) }, 0.1);
    expect(Array.from(b.dataSync())).toEqual(Array.from(a.dataSync()));
    first.dispose();
    second.dispose();
    tf.dispose([a, b]);
  });

  it('dispose frees all its state: no tensor and no byte outlives the optimizer (moments made at the first step or by setState)', () => {
    const w = tf.variable(tf.ones([8, 16]), true, 'free/w');
    const g = { [w.name]: tf.onesLike(w) };
    const before = tf.memory();
    const opt = new AdamW({ beta1: 0.9, beta2: 0.999, epsilon: 1e-8, weightDecay: 0 });
    opt.apply([w], g, 0.1);
    const restored = new AdamW(opt.options);
    restored.setState(opt.getState());
    opt.dispose();
    restored.dispose();
    expect(tf.memory().numTensors).toBe(before.numTensors);
    expect(tf.memory().numBytes).toBe(before.numBytes);
    tf.dispose([w, ...Object.values(g)]);
  });

  it('clipGradNorm gives the norm and the factor to the max norm, 1 for a non-finite norm; AdamW applies the factor', () => {
    const g = { x: tf.tensor1d([3, 4]) };
    const clip = clipGradNorm(g, 1);
    expect(clip.norm).toBeCloseTo(5, 5);
    expect(clip.scale).toBeCloseTo(1 / (5 + 1e-6), 7);
    expect(clipGradNorm(g, 10).scale).toBe(1);
    const bad = { y: tf.tensor1d([NaN, 1]) };
    const kept = clipGradNorm(bad, 1);
    expect(Number.isNaN(kept.norm)).toBe(true);
    expect(kept.scale).toBe(1);
    // the factor inside the update equals an update on the scaled gradient (same float product)
    const opts = { beta1: 0.9, beta2: 0.99, epsilon: 1e-8, weightDecay: 0 };
    const [a, b] = [tf.variable(tf.tensor1d([1, 2])), tf.variable(tf.tensor1d([1, 2]))];
    const [oa, ob] = [new AdamW(opts), new AdamW(opts)];
    oa.apply([a], { [a.name]: g.x }, 0.1, clip.scale);
    const scaled = tf.mul(g.x, clip.scale);
    ob.apply([b], { [b.name]: scaled }, 0.1);
    expect(maxError(a.dataSync(), b.dataSync())).toBeLessThan(1e-7);
    expect(maxError(a.dataSync(), [1, 2])).toBeGreaterThan(1e-3); // it moved
    tf.dispose([g.x, bad.y, scaled, a, b]);
    oa.dispose();
    ob.dispose();
  });
});
