import type { tf } from '@rred/engine';

/**
 * What the trainers need from a model: its trainable weights and differentiable per-token
 * log-probabilities. The transformer of @rred/lm is adapted to this in `lm-policy.ts`; tests use the
 * tiny bigram policy in `testing/`, so the trainers are testable without the transformer.
 */
export interface TrainablePolicy {
  /** Trainable weights. Names must be unique and stable: optimizer state is keyed by them. */
  readonly variables: tf.Variable[];
  /**
   * log p(targets[b,t] | inputs[b, ≤t]) for every position, differentiable w.r.t. `variables`.
   * inputs, targets: [B, T] int32 → [B, T] float32.
   */
  tokenLogprobs(inputs: tf.Tensor2D, targets: tf.Tensor2D): tf.Tensor2D;
}
