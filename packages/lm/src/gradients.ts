import { UserError } from '@rred/core';
import { tf } from '@rred/engine';
import { oneHotFloat } from './layers';
import type { Transformer } from './transformer';
import type { ComputeCost } from './types';

/**
 * Σ_{t ≥ targetFrom} log p(sequence[t] | sequence[<t]) as a function of the input embeddings
 * e [1, T, C] (token + position, the input of the first block). A scalar tensor.
 */
export function sequenceLogprobFromEmbeddings(
  model: Transformer,
  embeddings: tf.Tensor3D,
  sequence: number[],
  targetFrom: number,
): tf.Scalar {
  const T = sequence.length;
  const V = model.config.vocabSize;
  return tf.tidy(() => {
    const logp = tf.logSoftmax(model.logitsFromEmbeddings(embeddings)); // [T, V]; row t predicts t + 1
    // Row t − 1 picks sequence[t] for t ≥ targetFrom; every other row has weight 0.
    const targets = new Int32Array(T);
    const weights = new Float32Array(T);
    for (let t = Math.max(1, targetFrom); t < T; t++) {
      targets[t - 1] = sequence[t];
      weights[t - 1] = 1;
    }
    const picked = tf.sum(tf.mul(logp, oneHotFloat(tf.tensor1d(targets, 'int32'), V)), -1); // [T]
    return tf.sum(tf.mul(picked, tf.tensor1d(weights))) as tf.Scalar;
  });
}

/**
 * Gradient attribution (App. 10 baseline): for every input position t, the L1 norm over channels of
 * ∂ Σ_{t' ≥ targetFrom} log p(sequence[t'] | sequence[<t']) / ∂ e_t. One forward and one backward
 * pass over the sequence.
 */
export async function embeddingGradientNorms(
  model: Transformer,
  sequence: number[],
  targetFrom: number,
): Promise<{ norms: number[]; cost: ComputeCost }> {
  const { vocabSize: V, contextLength } = model.config;
  const T = sequence.length;
  if (T === 0 || T > contextLength) throw new UserError(`embeddingGradientNorms: sequence length ${T} must be in 1..${contextLength}`);
  const bad = sequence.find((t) => !(Number.isInteger(t) && t >= 0 && t < V));
  if (bad !== undefined) throw new UserError(`embeddingGradientNorms: token ${bad} is outside 0..${V - 1}`);
  if (!(Number.isInteger(targetFrom) && targetFrom >= 1 && targetFrom <= T)) {
    throw new UserError(`embeddingGradientNorms: targetFrom ${targetFrom} must be an integer in 1..${T} (position 0 has no prediction)`);
  }
  const norms = tf.tidy(() => {
    const embeddings = model.embedFromStart(tf.tensor2d([sequence], [1, T], 'int32')); // [1, T, C]
    const grad = tf.grad((e: tf.Tensor) => sequenceLogprobFromEmbeddings(model, e as tf.Tensor3D, sequence, targetFrom))(embeddings); // [1, T, C]
    return tf.sum(tf.abs(grad), -1); // [1, T]
  });
  const data = Array.from(await norms.data());
  norms.dispose();
  const nonFinite = data.findIndex((x) => !Number.isFinite(x));
  if (nonFinite >= 0) throw new Error(`embeddingGradientNorms: gradient norm at position ${nonFinite} is ${data[nonFinite]}`);
  return { norms: data, cost: { tokensForwarded: T, tokensGenerated: 0, forwardPasses: 1, tokensBackpropagated: T } };
}
