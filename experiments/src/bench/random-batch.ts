import type { Rng } from '@rred/core';
import { tf } from '@rred/engine';

/** A language-modelling batch of uniform random tokens: inputs [batch, seqLen] and the next tokens as targets [batch, seqLen]. */
export function randomBatch(rng: Rng, batch: number, seqLen: number, vocab: number): { inputs: tf.Tensor2D; targets: tf.Tensor2D } {
  const rows = Array.from({ length: batch }, () => Array.from({ length: seqLen + 1 }, () => rng.int(0, vocab - 1)));
  return {
    inputs: tf.tensor2d(
      rows.map((r) => r.slice(0, seqLen)),
      undefined,
      'int32',
    ),
    targets: tf.tensor2d(
      rows.map((r) => r.slice(1)),
      undefined,
      'int32',
    ),
  };
}
