import { tf } from '@rred/engine';
import type { Rng } from '@rred/core';
import type { TrainablePolicy } from '../policy';

let instances = 0;

/**
 * A tiny trainable test model: p(next | current) = softmax(E[current] · W + b). It has no context
 * beyond the previous token, which is enough to check that trainers reduce a loss and raise a reward
 * in seconds. Weights are drawn from `rng`, so two policies built from the same seed are identical.
 */
export class BigramPolicy implements TrainablePolicy {
  readonly variables: tf.Variable[];

  constructor(readonly vocabSize: number, dim: number, rng: Rng) {
    const id = instances++;
    const normal = (n: number, scale: number) => Float32Array.from({ length: n }, () => rng.normal() * scale);
    this.variables = [
      tf.variable(tf.tensor2d(normal(vocabSize * dim, 0.5), [vocabSize, dim]), true, `bigram${id}/embedding`),
      tf.variable(tf.tensor2d(normal(dim * vocabSize, 0.5), [dim, vocabSize]), true, `bigram${id}/out`),
      tf.variable(tf.zeros([vocabSize]), true, `bigram${id}/bias`),
    ];
  }

  /** [B, T] int32 → [B, T, V] log-probabilities of the next token. */
  logProbs(inputs: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => {
      const [B, T] = inputs.shape;
      const [emb, out, bias] = this.variables;
      // one-hot matmul instead of gather: gather's gradient (UnsortedSegmentSum) has no wasm kernel
      const h = tf.matMul(tf.oneHot(tf.reshape(tf.cast(inputs, 'int32'), [B * T]), this.vocabSize), emb); // [B*T, D]
      const logits = tf.add(tf.matMul(h, out), bias); // [B*T, V]
      return tf.reshape(tf.logSoftmax(logits), [B, T, this.vocabSize]) as tf.Tensor3D;
    });
  }

  tokenLogprobs(inputs: tf.Tensor2D, targets: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
      const lp = this.logProbs(inputs); // [B, T, V]
      const onehot = tf.oneHot(tf.cast(targets, 'int32'), this.vocabSize); // [B, T, V]
      return tf.sum(tf.mul(lp, onehot), -1) as tf.Tensor2D; // [B, T]
    });
  }

  dispose(): void {
    for (const v of this.variables) v.dispose();
  }
}
