import { tf } from '@rred/engine';
import { oneHotFloat } from './layers';
import type { Transformer } from './transformer';

/**
 * log p(targets[b, t] | inputs[b, ≤t]) for every position: [B, T]. Differentiable in the model's
 * weights (used inside tf.variableGrads by SFT and GRPO). The target log-probability is picked with
 * a one-hot product rather than a gather, because gather's gradient has no wasm kernel.
 */
export function tokenLogprobs(model: Transformer, inputs: tf.Tensor2D, targets: tf.Tensor2D): tf.Tensor2D {
  if (inputs.shape[0] !== targets.shape[0] || inputs.shape[1] !== targets.shape[1]) {
    throw new Error(`tokenLogprobs: inputs [${inputs.shape}] and targets [${targets.shape}] must have the same shape`);
  }
  return tf.tidy(() => {
    const logp = tf.logSoftmax(model.logits(inputs)); // [B, T, V]
    const picked = oneHotFloat(targets, model.config.vocabSize); // [B, T, V]
    return tf.sum(tf.mul(logp, picked), -1) as tf.Tensor2D; // [B, T]
  });
}
