import { adamwStep, sumOfSquares, tf } from '@rred/engine';

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
 * AdamW with bias correction over the engine's fused `adamwStep` (tfjs' built-in Adam has no decoupled
 * weight decay and no state export, and both are needed: decay for SFT, export for identical resume).
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
  apply(variables: tf.Variable[], grads: Record<string, tf.Tensor>, lr: number, gradScale = 1): void {
    this.step += 1;
    const { beta1, beta2, epsilon, weightDecay } = this.options;
    variables.forEach((variable, index) => {
      const g = grads[variable.name];
      if (!g) return;
      const m = this.moment(this.m, String(index), variable);
      const v = this.moment(this.v, String(index), variable);
      // One fused kernel per variable on wasm+native (the same tf-op composite elsewhere):
      //   m' = β1·m + (1−β1)·g, v' = β2·v + (1−β2)·g², p' = p − lr·(m'/c1)/(√(v'/c2) + ε) − lr·wd·p,
      // with decoupled decay only on matrices (rank ≥ 2), never on biases or norm gains.
      const decay = weightDecay > 0 && variable.rank >= 2 ? weightDecay : 0;
      const next = adamwStep(variable, g, m, v, { lr, beta1, beta2, epsilon, weightDecay: decay, step: this.step, gradScale });
      m.assign(next.m);
      v.assign(next.v);
      variable.assign(next.param);
      tf.dispose([next.m, next.v, next.param]);
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
      this.m.set(name, ownedVariable(tf.tensor(s.m, s.shape, 'float32')));
      this.v.set(name, ownedVariable(tf.tensor(s.v, s.shape, 'float32')));
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
      t = ownedVariable(tf.zerosLike(variable));
      store.set(key, t);
    } else if (t.shape.join('x') !== variable.shape.join('x')) {
      throw new Error(`AdamW: variable #${key} '${variable.name}' has shape [${variable.shape}], state has [${t.shape}]`);
    }
    return t;
  }
}

/**
 * A non-trainable variable holding `init`'s data, with `init` itself disposed: tf.variable shares the
 * initial tensor's data, so an initial tensor left alive keeps that data alive after the variable is
 * disposed (for AdamW's two moment buffers, 2 × the model's size).
 */
function ownedVariable(init: tf.Tensor): tf.Variable {
  const v = tf.variable(init, false);
  init.dispose();
  return v;
}

/**
 * Scales gradients in place of a new map so that their global L2 norm is at most `maxNorm`
 * (maxNorm ≤ 0 disables clipping). Returns the norm before clipping, which is what gets logged.
 * NaN/Inf norms are returned as-is and the gradients are left untouched, so the caller can refuse
 * the step instead of silently training on garbage.
 */
/**
 * The update every trainer makes from a loss and its gradients: global-norm clip to `gradClip`, then one
 * AdamW step at `lr`, refusing (throwing; `label` names the step) on a non-finite loss or gradient norm.
 * Disposes the gradients either way. Returns the gradient norm before clipping.
 */
export function clipAndApply(
  optimizer: AdamW,
  variables: tf.Variable[],
  grads: Record<string, tf.Tensor>,
  loss: number,
  o: { gradClip: number; lr: number },
  label: string,
): number {
  const clip = clipGradNorm(grads, o.gradClip);
  try {
    if (!Number.isFinite(loss) || !Number.isFinite(clip.norm))
      throw new Error(`${label}: non-finite loss ${loss} or grad norm ${clip.norm}; refusing to update`);
    optimizer.apply(variables, grads, o.lr, clip.scale); // the clip's factor is applied inside the fused update
  } finally {
    for (const g of Object.values(grads)) g.dispose();
  }
  return clip.norm;
}

/**
 * Global-norm clip (the gradients are not touched): norm = √Σ_g ‖g‖², and the factor AdamW multiplies them
 * by, maxNorm / (norm + 1e-6) when norm > maxNorm > 0, else 1 (also for a non-finite norm, which the
 * caller refuses).
 */
export function clipGradNorm(grads: Record<string, tf.Tensor>, maxNorm: number): { norm: number; scale: number } {
  const names = Object.keys(grads);
  const norm = Math.sqrt(sumOfSquares(names.map((n) => grads[n])));
  if (!(maxNorm > 0) || !Number.isFinite(norm) || norm <= maxNorm) return { norm, scale: 1 };
  return { norm, scale: maxNorm / (norm + 1e-6) };
}
