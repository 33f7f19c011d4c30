import { median, Rng, seedSchema } from '@rred/core';
import { tf } from '@rred/engine';
import { z } from 'zod';
import { round } from './timing';

/** One batched product [batch] × M×K×N, as the attention of a step issues it. */
const shapeSchema = z
  .object({
    name: z.string().min(1),
    batch: z.number().int().min(1),
    m: z.number().int().min(1),
    k: z.number().int().min(1),
    n: z.number().int().min(1),
  })
  .strict();

export const TransposeBConfigSchema = z
  .object({
    shapes: z
      .array(shapeSchema)
      .min(1)
      .default([
        { name: 'scoring q·kᵀ', batch: 116, m: 64, k: 32, n: 150 },
        { name: 'train q·kᵀ', batch: 128, m: 64, k: 32, n: 64 },
        { name: 'decode q·kᵀ', batch: 116, m: 1, k: 32, n: 150 },
      ])
      .describe(
        'Attention products of the GRPO step, [batch = rows·heads] × M×K×N with K = dh = 32: scoring (29 rows × 4 heads, 64 suffix queries against 150 keys; the headline shape), training (32 × 4, T = 64) and the sampler decode step (one query). The first is `transposeBSlowdown`.',
      ),
    calls: z.number().int().min(1).default(20).describe('Products per timed block (one block is one sample).'),
    reps: z
      .number()
      .int()
      .min(1)
      .default(9)
      .describe('Interleaved (plain, transposeB) block pairs per shape; the median ratio is reported.'),
    seed: seedSchema.default(0).describe('Seed of the operands.'),
  })
  .strict();
type TransposeBConfig = z.infer<typeof TransposeBConfigSchema>;

/**
 * a·bᵀ with b stored [batch, N, K] (tf.matMul(a, b, false, true), what attention's q·kᵀ does) against
 * the plain layout a·b with b stored [batch, K, N], same M, K, N: pairs of timed blocks interleaved, so
 * both sides see the same load; slowdown = median over reps of (transposeB block / plain block).
 */
export function benchTransposeB(config: TransposeBConfig, tick: () => void) {
  const rng = new Rng(config.seed);
  const rows = config.shapes.map((s) => {
    const rand = (shape: number[]) =>
      tf.tensor(
        Float32Array.from({ length: shape.reduce((x, y) => x * y, 1) }, () => rng.normal()),
        shape,
      );
    const a = rand([s.batch, s.m, s.k]); // [batch, M, K]
    const bPlain = rand([s.batch, s.k, s.n]); // [batch, K, N]
    const bT = rand([s.batch, s.n, s.k]); // [batch, N, K]
    const block = (transposeB: boolean) => {
      const t0 = performance.now();
      for (let i = 0; i < config.calls; i++) {
        const c = transposeB ? tf.matMul(a, bT, false, true) : tf.matMul(a, bPlain);
        c.dataSync();
        c.dispose();
      }
      return (performance.now() - t0) / config.calls;
    };
    block(false);
    block(true); // warm-up
    const plain: number[] = [];
    const trans: number[] = [];
    for (let r = 0; r < config.reps; r++) {
      plain.push(block(false));
      trans.push(block(true));
      tick();
    }
    tf.dispose([a, bPlain, bT]);
    const ratios = trans.map((t, i) => t / plain[i]);
    return {
      ...s,
      plainMs: round(median(plain), 3),
      transposeBMs: round(median(trans), 3),
      slowdown: round(median(ratios), 2),
      ratios: ratios.map((x) => round(x, 2)),
    };
  });
  return { transposeBSlowdown: rows[0].slowdown, shapes: rows };
}
