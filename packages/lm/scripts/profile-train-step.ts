/**
 * Per-kernel time of one SFT-style step (forward + backward) of the default-size model.
 * Usage: npx tsx packages/lm/scripts/profile-train-step.ts [batch=32] [length=64]
 */
import { Rng, runMain } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { createTransformer, tokenLogprobs } from '../src';

runMain(async () => {
  const [B, T] = [Number(process.argv[2] ?? 32), Number(process.argv[3] ?? 64)];
  const info = await initEngine({ quiet: true });
  const rng = new Rng(0);
  const model = createTransformer({ vocabSize: 48 }, rng.fork('init'));
  const data = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(0, 47)));
  const inputs = tf.tensor2d(
    data.map((r) => r.slice(0, T)),
    undefined,
    'int32',
  );
  const targets = tf.tensor2d(
    data.map((r) => r.slice(1)),
    undefined,
    'int32',
  );
  const step = () => {
    const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogprobs(model, inputs, targets))) as tf.Scalar, model.variables());
    value.dataSync();
    tf.dispose([value, ...Object.values(grads)]);
  };
  step();
  const profile = await tf.profile(step);
  const byKernel = new Map<string, { ms: number; n: number }>();
  for (const k of profile.kernels) {
    const e = byKernel.get(k.name) ?? { ms: 0, n: 0 };
    e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    e.n++;
    byKernel.set(k.name, e);
  }
  const rows = [...byKernel].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((s, [, e]) => s + e.ms, 0);
  console.log(`backend ${info.backend}; ${profile.kernels.length} kernels, ${total.toFixed(0)} ms kernel time`);
  for (const [name, e] of rows.slice(0, 25))
    console.log(`${name.padEnd(22)} ${e.ms.toFixed(1).padStart(8)} ms  ${String(e.n).padStart(5)} calls`);
});
