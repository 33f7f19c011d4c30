/**
 * Times one SFT-style step (forward + backward through tokenLogprobs) of the default-size model.
 * Usage: npx tsx packages/lm/scripts/bench-train-step.ts [batch=32] [length=64] [steps=3]
 */
import { Rng, runMain } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { createTransformer, tokenLogprobs } from '@rred/lm';

runMain(async () => {
  const [B, T, steps] = [Number(process.argv[2] ?? 32), Number(process.argv[3] ?? 64), Number(process.argv[4] ?? 3)];
  const info = await initEngine({ quiet: true });
  const rng = new Rng(0);
  const model = createTransformer({ vocabSize: 48 }, rng.fork('init'));
  const data = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(0, 47)));
  const inputs = tf.tensor2d(data.map((r) => r.slice(0, T)), undefined, 'int32');
  const targets = tf.tensor2d(data.map((r) => r.slice(1)), undefined, 'int32');
  const times: number[] = [];
  for (let s = 0; s < steps; s++) {
    const start = performance.now();
    const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogprobs(model, inputs, targets))) as tf.Scalar, model.variables());
    await value.data();
    tf.dispose([value, ...Object.values(grads)]);
    times.push(performance.now() - start);
  }
  console.log(`backend ${info.backend}, params ${model.paramCount}, batch ${B}x${T}: step ms ${times.map((t) => t.toFixed(0)).join(', ')}`);
});
