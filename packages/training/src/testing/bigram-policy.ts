import { tf } from '@rred/engine';
import type { Rng } from '@rred/core';
import type { ComputeCost, SampleOptions, SampleResult } from '@rred/lm';
import type { TrainablePolicy } from '../policy';

let instances = 0;

/**
 * A tiny trainable test model: p(next | current) = softmax(E[current] · W + b). It has no context
 * beyond the previous token, which is enough to check that trainers reduce a loss and raise a reward
 * in seconds. Weights are drawn from `rng`, so two policies built from the same seed are identical.
 */
export class BigramPolicy implements TrainablePolicy {
  readonly variables: tf.Variable[];

  constructor(
    readonly vocabSize: number,
    dim: number,
    rng: Rng,
  ) {
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

  /** Ancestral sampling (temperature, no top-p) in the shape of LanguageModel.sample. */
  async sample(prompts: number[][], options: SampleOptions, rng: Rng): Promise<{ results: SampleResult[]; cost: ComputeCost }> {
    const results: SampleResult[] = prompts.map(() => ({ tokens: [], logprobs: [], entropies: [], truncated: true }));
    const last = prompts.map((p) => p[p.length - 1]);
    const done = prompts.map(() => false);
    for (let step = 0; step < options.maxNewTokens && done.some((d) => !d); step++) {
      const lp = tf.tidy(() => this.logProbs(tf.tensor2d(last, [last.length, 1], 'int32')).dataSync()); // [B·V]
      last.forEach((_, b) => {
        if (done[b]) return;
        const row = Array.from(lp.subarray(b * this.vocabSize, (b + 1) * this.vocabSize));
        const weights = row.map((x) => Math.exp(options.temperature > 0 ? x / options.temperature : x));
        const tok = options.temperature > 0 ? rng.categorical(weights) : row.indexOf(Math.max(...row));
        results[b].tokens.push(tok);
        results[b].logprobs.push(row[tok]);
        results[b].entropies.push(-row.reduce((h, x) => h + Math.exp(x) * x, 0));
        last[b] = tok;
        if (tok === options.stopToken) {
          done[b] = true;
          results[b].truncated = false;
        }
      });
    }
    return { results, cost: { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0 } };
  }

  dispose(): void {
    for (const v of this.variables) v.dispose();
  }
}
