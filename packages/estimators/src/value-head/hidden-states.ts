/**
 * OPTIONAL value-head baseline (flagged; not part of the paper's method): final-layer hidden states of
 * the policy at chosen positions, the features a value head reads. Kept behind a small interface so
 * the head is testable without a transformer.
 */
import type { ComputeCost, Transformer } from '@rred/lm';

// Loaded on first use so that importing @rred/estimators does not load TensorFlow.js.
type Tf = (typeof import('@rred/engine'))['tf'];

export interface HiddenStateModel {
  /** Feature dimension C. */
  readonly dim: number;
  /** Final-layer-normed hidden state at each requested position of `sequence` (one causal forward): [positions][C]. */
  hiddenStates(sequence: number[], positions: number[]): Promise<{ states: number[][]; cost: ComputeCost }>;
}

/** Hidden states of a `Transformer` (from @rred/lm) via its public embedding and block methods. */
export function transformerHiddenStates(transformer: Transformer): HiddenStateModel {
  const C = transformer.config.dModel;
  return {
    dim: C,
    async hiddenStates(sequence, positions) {
      const T = sequence.length;
      positions.forEach((p) => {
        if (!Number.isInteger(p) || p < 0 || p >= T) throw new RangeError(`hiddenStates: position ${p} outside [0, ${T})`);
      });
      const { tf } = await import('@rred/engine');
      const picked = tf.tidy(() => {
        const tokens = tf.tensor2d([sequence], [1, T], 'int32');
        const x = tf.reshape(transformer.embedFromStart(tokens), [T, C]) as ReturnType<Tf['tensor2d']>; // [T, C]
        const { hidden } = transformer.runBlocks({ x, batch: 1, length: T, mask: causalMask(tf, T) }); // [T, C]
        return tf.gather(hidden, tf.tensor1d(positions, 'int32')); // [positions, C]
      });
      const flat = await picked.data();
      picked.dispose();
      const states = positions.map((_, i) => Array.from(flat.subarray(i * C, (i + 1) * C)));
      return { states, cost: { tokensForwarded: T, tokensGenerated: 0, forwardPasses: 1 } };
    },
  };
}

/** Additive causal mask [1, 1, T, T]: 0 where position j ≤ i is visible, a large negative number above. */
function causalMask(tf: Tf, T: number): ReturnType<Tf['tensor4d']> {
  const data = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) data[i * T + j] = -1e9;
  return tf.tensor4d(data, [1, 1, T, T]);
}
