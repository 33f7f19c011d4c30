import type { tf } from '@rred/engine';
import { tokenLogprobs, type Transformer } from '@rred/lm';
import type { TrainablePolicy } from './policy';

/** The @rred/lm transformer seen as a trainable policy (same variables, lm's differentiable logprobs). */
export function transformerPolicy(transformer: Transformer): TrainablePolicy {
  return {
    variables: transformer.variables(),
    tokenLogprobs: (inputs: tf.Tensor2D, targets: tf.Tensor2D) => tokenLogprobs(transformer, inputs, targets),
  };
}
