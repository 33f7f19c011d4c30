import { tf } from '@rred/engine';

/** Hyper-parameters of AdamW (Loshchilov & Hutter, decoupled weight decay). */
export interface AdamWOptions {
  beta1: number;
  beta2: number;
  epsilon: number;
  /** Decoupled decay, applied only to weights of rank ≥ 2 (matrices), not to biases/norm gains. */
  weightDecay: number;
}

/**
 * Serializable optimizer state: step count and the two moment estimates per variable, keyed by the
 * variable's position in the list passed to `apply` (not by name: two instances of one model may carry
 * different name prefixes, and a resumed run must still match).
 */
export interface AdamWState {
  step: number;
  moments: Record<string, { m: Float32Array; v: Float32Array; shape: number[] }>;
}

/**
 * AdamW with bias correction, written out with tf ops (tfjs' built-in Adam has no decoupled weight
 * decay and no state export, and both are needed: decay for SFT, export for identical resume).
 */
export class AdamW {
  private step = 0;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();

  constructor(readonly options: AdamWOptions) {}

  get stepCount(): number {
    return this.step;
  }

  /** One update of every variable that has a gradient; `lr` comes from the schedule. */
  apply(variables: tf.Variable[], grads: Record<string, tf.Tensor>, lr: number): void {
    this.step += 1;
    const { beta1, beta2, epsilon, weightDecay } = this.options;
    const c1 = 1 - Math.pow(beta1, this.step);
    const c2 = 1 - Math.pow(beta2, this.step);
    variables.forEach((variable, index) => {
      const g = grads[variable.name];
      if (!g) return;
      const m = this.moment(this.m, String(index), variable);
      const v = this.moment(this.v, String(index), variable);
      tf.tidy(() => {
        const mNew = tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1));
        const vNew = tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2));
        m.assign(mNew);
        v.assign(vNew);
        // update = m̂ / (sqrt(v̂) + ε), with m̂ = m / c1, v̂ = v / c2
        const update = tf.div(tf.div(mNew, c1), tf.add(tf.sqrt(tf.div(vNew, c2)), epsilon));
        let next = tf.sub(variable, tf.mul(update, lr));
        if (weightDecay > 0 && variable.rank >= 2) next = tf.sub(next, tf.mul(variable, lr * weightDecay));
        variable.assign(next);
      });
    });
  }

  getState(): AdamWState {
    const moments: AdamWState['moments'] = {};
    for (const [name, m] of this.m) {
      const v = this.v.get(name)!;
      moments[name] = { m: m.dataSync() as Float32Array, v: v.dataSync() as Float32Array, shape: m.shape.slice() };
    }
    return { step: this.step, moments };
  }

  setState(state: AdamWState): void {
    this.dispose();
    this.step = state.step;
    for (const [name, s] of Object.entries(state.moments)) {
      this.m.set(name, tf.variable(tf.tensor(s.m, s.shape, 'float32'), false));
      this.v.set(name, tf.variable(tf.tensor(s.v, s.shape, 'float32'), false));
    }
  }

  dispose(): void {
    for (const t of this.m.values()) t.dispose();
    for (const t of this.v.values()) t.dispose();
    this.m.clear();
    this.v.clear();
  }

  private moment(store: Map<string, tf.Variable>, key: string, variable: tf.Variable): tf.Variable {
    let t = store.get(key);
    if (!t) {
      t = tf.variable(tf.zerosLike(variable), false);
      store.set(key, t);
    } else if (t.shape.join('x') !== variable.shape.join('x')) {
      throw new Error(`AdamW: variable #${key} '${variable.name}' has shape [${variable.shape}], state has [${t.shape}]`);
    }
    return t;
  }
}

/**
 * Scales gradients in place of a new map so that their global L2 norm is at most `maxNorm`
 * (maxNorm ≤ 0 disables clipping). Returns the norm before clipping, which is what gets logged.
 * NaN/Inf norms are returned as-is and the gradients are left untouched, so the caller can refuse
 * the step instead of silently training on garbage.
 */
export function clipGradNorm(
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
): { grads: Record<string, tf.Tensor>; norm: number } {
  const names = Object.keys(grads);
  const norm = names.length
    ? Math.sqrt(tf.tidy(() => tf.addN(names.map((n) => tf.sum(tf.square(grads[n])))).dataSync()[0]))
    : 0;
  if (!(maxNorm > 0) || !Number.isFinite(norm) || norm <= maxNorm) return { grads, norm };
  const scale = maxNorm / (norm + 1e-6);
  const out: Record<string, tf.Tensor> = {};
  for (const n of names) {
    out[n] = tf.mul(grads[n], scale);
    grads[n].dispose();
  }
  return { grads: out, norm };
}
