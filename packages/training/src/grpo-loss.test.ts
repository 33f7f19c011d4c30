import { initEngine, tf } from '@rred/engine';
import { policyLoss, stopGradient, type LossType } from './grpo-loss';

beforeAll(async () => {
  await initEngine({ quiet: true });
});

// One hand-worked micro-batch: 2 sequences, 3 positions, the last position of row 2 is padding.
const logp = [
  [-1.0, -2.0, -0.5],
  [-0.3, -1.0, -9.0],
];
const old = [
  [-1.1, -2.0, -0.2],
  [-0.3, -1.5, -9.0],
];
const ref = [
  [-0.9, -2.2, -0.4],
  [-0.5, -1.0, -9.0],
];
const mask = [
  [1, 1, 1],
  [1, 1, 0],
];
const coef = [
  [1.0, 1.0, 1.0],
  [-2.0, -2.0, 0.0],
];
const eps = 0.2;
const epsHigh = 0.28;
const beta = 0.1;

/** The per-token loss written out with scalars, straight from the formula in grpo-loss.ts. */
function perTokenByHand(sequence: boolean): number[][] {
  return logp.map((row, i) => {
    const n = mask[i].reduce((a, b) => a + b, 0);
    const seqLogRatio = row.reduce((a, lp, t) => a + mask[i][t] * (lp - old[i][t]), 0) / n;
    return row.map((lp, t) => {
      const r = Math.exp(sequence ? seqLogRatio : mask[i][t] * (lp - old[i][t]));
      const clipped = Math.min(Math.max(r, 1 - eps), 1 + epsHigh);
      const pg = -Math.min(r * coef[i][t], clipped * coef[i][t]);
      const d = ref[i][t] - lp;
      return pg + beta * (Math.exp(d) - d - 1);
    });
  });
}

function reduceByHand(per: number[][], lossType: LossType, maxLen: number, dapoTokens: number): number {
  const masked = per.map((row, i) => row.map((x, t) => x * mask[i][t]));
  const rowSums = masked.map((row) => row.reduce((a, b) => a + b, 0));
  const lens = mask.map((row) => row.reduce((a, b) => a + b, 0));
  const total = rowSums.reduce((a, b) => a + b, 0);
  const active = lens.reduce((a, b) => a + b, 0);
  switch (lossType) {
    case 'grpo':
      return (rowSums[0] / lens[0] + rowSums[1] / lens[1]) / 2;
    case 'bnpo':
      return total / active;
    case 'dr_grpo':
      return total / (2 * maxLen);
    case 'dapo':
      return total / dapoTokens;
  }
}

describe('policyLoss', () => {
  for (const lossType of ['grpo', 'bnpo', 'dr_grpo', 'dapo'] as const) {
    for (const importanceSampling of ['token', 'sequence', 'sequenceToken'] as const) {
      const sequence = importanceSampling !== 'token'; // sequenceToken has the value of the sequence ratio
      it(`${lossType} / ${importanceSampling} ratios equal the hand computation`, () => {
        const out = policyLoss(
          {
            logprobs: tf.tensor2d(logp),
            oldLogprobs: tf.tensor2d(old),
            refLogprobs: tf.tensor2d(ref),
            mask: tf.tensor2d(mask),
            coefficients: tf.tensor2d(coef),
          },
          {
            lossType,
            importanceSampling,
            epsilon: eps,
            epsilonHigh: epsHigh,
            beta,
            maxCompletionLength: 4,
            dapoActiveTokens: 10,
          },
        );
        const expected = reduceByHand(perTokenByHand(sequence), lossType, 4, 10);
        expect(out.loss.dataSync()[0]).toBeCloseTo(expected, 5);
      });
    }
  }

  it('counts clipped tokens: r > 1+ε_high with A > 0 and r < 1−ε with A < 0', () => {
    // token ratios: row 1 exp(0.1)=1.105, 1, exp(-0.3)=0.741 (A>0: none above 1.28);
    // row 2: 1, exp(0.5)=1.65 (A<0: below 0.8? no) → nothing clipped here; make a clear case instead:
    const out = policyLoss(
      {
        logprobs: tf.tensor2d([[0.0, 0.0]]),
        oldLogprobs: tf.tensor2d([[-1.0, 1.0]]), // ratios e ≈ 2.72 and 1/e ≈ 0.37
        mask: tf.tensor2d([[1, 1]]),
        coefficients: tf.tensor2d([[1.0, -1.0]]),
      },
      {
        lossType: 'bnpo',
        importanceSampling: 'token',
        epsilon: 0.2,
        epsilonHigh: 0.2,
        beta: 0,
        maxCompletionLength: 2,
        dapoActiveTokens: 2,
      },
    );
    expect(out.clipped.dataSync()[0]).toBe(2);
    // loss = mean(−1.2·1, −(0.8·−1)) = mean(−1.2, 0.8) = −0.2
    expect(out.loss.dataSync()[0]).toBeCloseTo(-0.2, 6);
  });
});

describe('policyLoss gradients under sequence-level ratios', () => {
  // ∂loss/∂logπ for one row-set of coefficients; μ = 1 (old = current in value), grpo reduction, no KL.
  const rowLogp = [
    [-1.0, -2.0, -0.5, -0.7],
    [-0.3, -1.0, -0.2, -9.0],
  ];
  const rowMask = [
    [1, 1, 1, 1],
    [1, 1, 1, 0],
  ];
  const gradOf = (coefficients: number[][], importanceSampling: 'sequence' | 'sequenceToken') =>
    tf.tidy(() => {
      const f = (lp: tf.Tensor) =>
        policyLoss(
          {
            logprobs: lp as tf.Tensor2D,
            oldLogprobs: stopGradient(lp as tf.Tensor2D),
            mask: tf.tensor2d(rowMask),
            coefficients: tf.tensor2d(coefficients),
          },
          { lossType: 'grpo', importanceSampling, epsilon: 0.2, epsilonHigh: 0.2, beta: 0, maxCompletionLength: 4, dapoActiveTokens: 7 },
        ).loss;
      return tf.grad(f)(tf.tensor2d(rowLogp)).arraySync() as number[][];
    });
  const maxDiff = (a: number[][], b: number[][]) => Math.max(...a.flatMap((row, i) => row.map((x, t) => Math.abs(x - b[i][t]))));
  // row 1: A = 1.5 spread unevenly (Σσ_t = 1, so Σ_t Â = 1.5·|o|); row 2: A = −1 spread unevenly
  const uniform = [
    [1.5, 1.5, 1.5, 1.5],
    [-1, -1, -1, 0],
  ];
  const weighted = [
    [0.3, 3.0, 2.4, 0.3],
    [-0.5, -2.0, -0.5, 0],
  ];

  it("'sequenceToken' equals 'sequence' when every token of a completion has the same coefficient", () => {
    expect(maxDiff(gradOf(uniform, 'sequenceToken'), gradOf(uniform, 'sequence'))).toBeLessThan(1e-7);
  });

  it("'sequence' ignores how the coefficients are spread over a completion (why redistribution needs 'sequenceToken')", () => {
    expect(maxDiff(gradOf(weighted, 'sequence'), gradOf(uniform, 'sequence'))).toBeLessThan(1e-7);
  });

  it("'sequenceToken' weights token t's gradient by its own coefficient: ∂loss/∂logπ_t = −Â_t / (N·|o_i|) at ratio 1", () => {
    const g = gradOf(weighted, 'sequenceToken');
    weighted.forEach((row, i) => {
      const n = rowMask[i].reduce((a, b) => a + b, 0);
      row.forEach((c, t) => expect(g[i][t]).toBeCloseTo(rowMask[i][t] ? -c / (2 * n) : 0, 6));
    });
    expect(maxDiff(g, gradOf(uniform, 'sequenceToken'))).toBeGreaterThan(0.1);
  });
});

describe('stopGradient', () => {
  it('passes values and blocks gradients', () => {
    const x = tf.tensor2d([[1, 2]]);
    const g = tf.grad((v: tf.Tensor) => tf.sum(tf.add(tf.mul(v, 3), stopGradient(tf.mul(v, v) as tf.Tensor2D))))(x);
    expect(Array.from(g.dataSync())).toEqual([3, 3]);
    expect(Array.from(stopGradient(x).dataSync())).toEqual([1, 2]);
  });
});
