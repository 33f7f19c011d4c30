import { initEngine, tf } from '@rred/engine';
async function main() {
  await initEngine({ quiet: true });
  const q = tf.randomNormal([29, 4, 64, 32]) as tf.Tensor4D;
  const k = tf.randomNormal([29, 4, 150, 32]) as tf.Tensor4D;
  const kt = tf.transpose(k, [0, 1, 3, 2]) as tf.Tensor4D;
  const p = tf.randomNormal([29, 4, 64, 150]) as tf.Tensor4D;
  const cases: Record<string, () => tf.Tensor> = {
    'q·kᵀ (transB)': () => tf.matMul(q, k, false, true),
    'q·kt (pre-transposed)': () => tf.matMul(q, kt),
    'transpose+matmul': () => tf.matMul(q, tf.transpose(k, [0, 1, 3, 2])),
    'p·v': () => tf.matMul(p, k),
  };
  for (let round = 0; round < 3; round++) {
    for (const [name, f] of Object.entries(cases)) {
      const t0 = performance.now();
      for (let i = 0; i < 20; i++) tf.tidy(() => { f().dataSync(); });
      console.log(round, name, ((performance.now() - t0) / 20).toFixed(2), 'ms');
    }
  }
}
main();
