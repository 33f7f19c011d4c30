import { tf } from '@rred/engine';
import type { Rng } from '@rred/core';
import type { Transformer } from '@rred/lm';

/**
 * Sinusoidal values (Vaswani et al. 2017) for a learned position table: PE[p, 2i] = a·sin(p/10000^(2i/C)),
 * PE[p, 2i+1] = a·cos(p/10000^(2i/C)). Any fixed offset is then a linear map of the table, so heads that
 * look "k tokens back" (operands of the current step line, whose absolute positions vary with the prompt
 * length) are easy to form from the first step; with N(0, 0.02) init each position must be learned
 * separately and pretraining sat on a plateau at uniform digits. `amplitude` a matches the norm of the
 * N(0, 0.02) token embeddings by default (a·√(C/2) ≈ 0.02·√C).
 */
export function sinusoidalTable(length: number, width: number, amplitude = 0.02 * Math.SQRT2): Float32Array {
  const out = new Float32Array(length * width);
  for (let p = 0; p < length; p++) {
    for (let i = 0; i < width; i += 2) {
      const angle = p / Math.pow(10000, i / width);
      out[p * width + i] = amplitude * Math.sin(angle);
      if (i + 1 < width) out[p * width + i + 1] = amplitude * Math.cos(angle);
    }
  }
  return out;
}

/** Overwrites the transformer's position table with `sinusoidalTable` (it stays trainable). */
export function initSinusoidalPositions(transformer: Transformer, amplitude?: number): void {
  const table = transformer.params.get('positionEmbedding');
  if (!table) throw new Error('transformer has no positionEmbedding parameter');
  const [L, C] = table.shape;
  tf.tidy(() => table.assign(tf.tensor2d(sinusoidalTable(L, C, amplitude), [L, C])));
}

/**
 * Re-draws the (tied input/output) token embeddings from N(0, std²). Why: with GPT-2's std 0.02 the
 * digit tokens collapsed onto one shared direction during the first hundred steps (pairwise cosine
 * ≈ 0.9: the model first learns "a digit comes next", which moves every digit embedding the same
 * way), so digits stayed indistinguishable and the digit loss sat at ln 10. A larger spread keeps
 * their identities apart. Values come from `rng`, so the init stays a function of the seed.
 */
export function initTokenEmbeddings(transformer: Transformer, std: number, rng: Rng): void {
  const table = transformer.params.get('tokenEmbedding');
  if (!table) throw new Error('transformer has no tokenEmbedding parameter');
  const values = Float32Array.from({ length: table.size }, () => std * rng.normal());
  tf.tidy(() => table.assign(tf.tensor(values, table.shape)));
}
