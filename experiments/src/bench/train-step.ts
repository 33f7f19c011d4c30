import { parseConfig } from '@rred/core';
import { tf } from '@rred/engine';
import { tokenLogprobs, type Transformer } from '@rred/lm';
import { AdamW, clipAndApply, optimizerConfigSchema } from '@rred/training';

/**
 * The project's training update on one language-modelling batch, as SftTrainer and GrpoTrainer do it:
 * loss = −mean token log-probability, gradients of every variable, global-norm clip, AdamW (one fused
 * kernel per variable on wasm+native), with the default optimizer config at its peak lr.
 *   inputs, targets: int32 [rows, T]
 * `step()` runs one update (clipAndApply: it refuses a non-finite loss or gradient norm); dispose `optimizer` when done.
 */
export function lmTrainStep(
  model: Transformer,
  inputs: tf.Tensor2D,
  targets: tf.Tensor2D,
  label: string,
): { step: () => void; optimizer: AdamW } {
  const opt = parseConfig(optimizerConfigSchema, {}, `${label} optimizer`);
  const optimizer = new AdamW(opt);
  const loss = () => tf.neg(tf.mean(tokenLogprobs(model, inputs, targets))) as tf.Scalar;
  const step = () => {
    const { value, grads } = tf.variableGrads(loss, model.variables());
    const l = value.dataSync()[0];
    value.dispose();
    clipAndApply(optimizer, model.variables(), grads, l, opt, label);
  };
  return { step, optimizer };
}
