import { tf } from '@rred/engine';
import { UserError } from '@rred/core';

/** One training sequence split into the prompt (conditioning only) and the completion (trained). */
export interface SftExample {
  /** `<bos>` problem `<think>` */
  prompt: number[];
  /** solution `</think>` answer `<eos>` */
  completion: number[];
  /**
   * Indices into `completion` whose tokens get no loss (still inputs): an early exit's `</think>`,
   * a masked wrong line. Absent or empty: every completion token is trained.
   */
  untrained?: number[];
}

/** A right-padded next-token batch: position t predicts targets[b,t] from inputs[b, ≤t]. */
export interface TokenBatch {
  inputs: tf.Tensor2D; // [B, T] int32
  targets: tf.Tensor2D; // [B, T] int32
  /** 1 where targets[b,t] is a completion token (trained), 0 on prompt and padding. */
  mask: tf.Tensor2D; // [B, T] float32
  /** Number of trained (mask = 1) tokens per row. */
  completionLengths: number[];
}

/**
 * Builds the teacher-forcing batch. Each sequence prompt ++ completion is truncated to
 * `contextLength + 1` tokens (so the model sees at most contextLength inputs), shifted by one into
 * inputs/targets and right-padded with `padId` to the longest row. Only completion tokens are
 * trained, minus the example's `untrained` ones: prompt tokens are the condition, not the output.
 */
export function buildBatch(examples: SftExample[], contextLength: number, padId: number): TokenBatch {
  if (examples.length === 0) throw new UserError('buildBatch: empty batch');
  const rows = examples.map((ex, i) => {
    if (ex.prompt.length === 0) throw new UserError(`buildBatch: example ${i} has an empty prompt`);
    return ex.prompt.concat(ex.completion).slice(0, contextLength + 1);
  });
  const T = Math.max(1, Math.max(...rows.map((r) => r.length)) - 1);
  const B = rows.length;
  const inputs = new Int32Array(B * T).fill(padId);
  const targets = new Int32Array(B * T).fill(padId);
  const mask = new Float32Array(B * T);
  const completionLengths: number[] = [];
  rows.forEach((row, b) => {
    const promptLength = examples[b].prompt.length;
    const untrained = new Set(examples[b].untrained ?? []);
    let trained = 0;
    for (let t = 0; t + 1 < row.length; t++) {
      inputs[b * T + t] = row[t];
      targets[b * T + t] = row[t + 1];
      // target position t+1 is a completion token iff t+1 ≥ promptLength; it is completion[t+1−promptLength]
      if (t + 1 >= promptLength && !untrained.has(t + 1 - promptLength)) {
        mask[b * T + t] = 1;
        trained += 1;
      }
    }
    completionLengths.push(trained);
  });
  return {
    inputs: tf.tensor2d(inputs, [B, T], 'int32'),
    targets: tf.tensor2d(targets, [B, T], 'int32'),
    mask: tf.tensor2d(mask, [B, T], 'float32'),
    completionLengths,
  };
}

export function disposeBatch(batch: TokenBatch): void {
  batch.inputs.dispose();
  batch.targets.dispose();
  batch.mask.dispose();
}
