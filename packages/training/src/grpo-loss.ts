import { tf } from '@rred/engine';

export type LossType = 'grpo' | 'bnpo' | 'dr_grpo' | 'dapo';
type ImportanceSampling = 'token' | 'sequence' | 'sequenceToken';

/** Inputs of one micro-batch of the clipped policy-gradient loss. All tensors [N, T] float32. */
interface PolicyLossInputs {
  /** log π_θ(o_t | q, o_<t) under the current weights (differentiable). */
  logprobs: tf.Tensor2D;
  /** log π_old at sampling time (constant). With μ = 1 this equals `logprobs` in value. */
  oldLogprobs: tf.Tensor2D;
  /** log π_ref of the frozen reference (constant); needed only when beta > 0. */
  refLogprobs?: tf.Tensor2D;
  /** 1 on completion tokens, 0 on prompt and padding. */
  mask: tf.Tensor2D;
  /**
   * Per-token advantage coefficient Â_{i,t} = A_i · σ_{i,t} · |o_i| (σ: token weights from the hook); with σ = 1/|o_i|
   * (Eq. 12) this is A_i on every token, plain GRPO.
   */
  coefficients: tf.Tensor2D;
}

interface PolicyLossOptions {
  lossType: LossType;
  importanceSampling: ImportanceSampling;
  /** Lower clip: ratio ≥ 1 − epsilon. */
  epsilon: number;
  /** Upper clip: ratio ≤ 1 + epsilonHigh (DAPO's clip-higher when > epsilon). */
  epsilonHigh: number;
  /** KL coefficient β (k3 estimator); 0 disables the KL term. */
  beta: number;
  /** dr_grpo: the generation limit (max completion length) used as the constant normalizer. */
  maxCompletionLength: number;
  /** dapo: active (mask = 1) tokens in the whole accumulated batch, not just this micro-batch. */
  dapoActiveTokens: number;
}

/**
 * The PPO-clipped GRPO objective, negated as a loss, over one micro-batch:
 *
 *   ratio r_{i,t} = exp(logπ_θ − logπ_old)                          ('token')
 *                 = s_i = exp( Σ_t m_{i,t}(logπ_θ − logπ_old) / |o_i| )   ('sequence', GSPO: length-normalised
 *                                                                      sequence ratio, same for every token)
 *                 = sg[s_i] · π_θ(o_t) / sg[π_θ(o_t)]              ('sequenceToken', GSPO-token: the value of
 *                                                                      s_i, the gradient of token t's own log-prob)
 *
 * Why 'sequenceToken' exists: under 'sequence' every token of completion i shares the gradient of s_i,
 * so Σ_t ℓ_{i,t} depends on the coefficients only through Σ_t Â_{i,t} — token weights σ then
 * change nothing when Σ_t σ_t = 1 and only rescale A_i otherwise. GSPO-token keeps the sequence-level
 * ratio and clipping but lets Â_{i,t} weight token t's gradient; with equal Â over a completion its loss
 * and gradients equal 'sequence' (tested).
 *   ℓ_{i,t} = −min(r · Â_{i,t}, clip(r, 1 − ε, 1 + ε_high) · Â_{i,t}) + β · KL_{i,t}
 *   KL_{i,t} = exp(logπ_ref − logπ_θ) − (logπ_ref − logπ_θ) − 1      (k3, Schulman's unbiased estimator)
 *
 * reduced according to `lossType` (|o_i| = Σ_t m_{i,t}, N = rows in the micro-batch):
 *   grpo    : (1/N) Σ_i (1/|o_i|) Σ_t m ℓ        — per-sequence mean, then mean over sequences
 *   bnpo    : Σ_{i,t} m ℓ / Σ_{i,t} m            — mean over the micro-batch's active tokens
 *   dr_grpo : Σ_{i,t} m ℓ / (N · maxCompletionLength)
 *   dapo    : Σ_{i,t} m ℓ / dapoActiveTokens     — active tokens across the accumulated batch
 *
 * Returns the loss and (as constants) the clipped-token count and the mean KL for logging.
 */
export function policyLoss(x: PolicyLossInputs, o: PolicyLossOptions): { loss: tf.Scalar; clipped: tf.Scalar; meanKl: tf.Scalar } {
  return tf.tidy(() => {
    const { mask } = x;
    const lengths = tf.maximum(tf.sum(mask, -1), 1); // [N]
    const logRatio = tf.mul(tf.sub(x.logprobs, x.oldLogprobs), mask); // [N, T]
    const sequenceLogRatio = () => tf.mul(tf.expandDims(tf.div(tf.sum(logRatio, -1), lengths), 1), tf.onesLike(mask)) as tf.Tensor2D; // [N, T]
    const logWeight =
      o.importanceSampling === 'token'
        ? logRatio
        : o.importanceSampling === 'sequence'
          ? sequenceLogRatio()
          : tf.add(stopGradient(sequenceLogRatio()), tf.mul(tf.sub(x.logprobs, stopGradient(x.logprobs)), mask)); // value log s_i, gradient ∇logπ_t
    const ratio = tf.exp(logWeight); // [N, T]
    const clippedRatio = tf.clipByValue(ratio, 1 - o.epsilon, 1 + o.epsilonHigh);
    const unclippedTerm = tf.mul(ratio, x.coefficients);
    const clippedTerm = tf.mul(clippedRatio, x.coefficients);
    let perToken = tf.neg(tf.minimum(unclippedTerm, clippedTerm)); // [N, T]
    let kl: tf.Tensor2D | null = null;
    if (o.beta > 0) {
      if (!x.refLogprobs) throw new Error('policyLoss: beta > 0 needs refLogprobs');
      const delta = tf.sub(x.refLogprobs, x.logprobs);
      kl = tf.sub(tf.sub(tf.exp(delta), delta), 1) as tf.Tensor2D;
      perToken = tf.add(perToken, tf.mul(kl, o.beta));
    }
    const masked = tf.mul(perToken, mask);
    const N = mask.shape[0];
    let loss: tf.Scalar;
    switch (o.lossType) {
      case 'grpo':
        loss = tf.mean(tf.div(tf.sum(masked, -1), lengths)) as tf.Scalar;
        break;
      case 'bnpo':
        loss = tf.div(tf.sum(masked), tf.maximum(tf.sum(mask), 1)) as tf.Scalar;
        break;
      case 'dr_grpo':
        loss = tf.div(tf.sum(masked), N * o.maxCompletionLength) as tf.Scalar;
        break;
      case 'dapo':
        loss = tf.div(tf.sum(masked), Math.max(1, o.dapoActiveTokens)) as tf.Scalar;
        break;
      default:
        throw new Error(`unknown lossType ${String(o.lossType)}`);
    }
    // a token is "clipped" when the clipped term is the one min() picked and differs from the unclipped
    const isClipped = tf.mul(tf.cast(tf.less(clippedTerm, unclippedTerm), 'float32'), mask);
    const clipped = tf.sum(isClipped) as tf.Scalar;
    const meanKl = (kl ? tf.div(tf.sum(tf.mul(kl, mask)), tf.maximum(tf.sum(mask), 1)) : tf.scalar(0)) as tf.Scalar;
    return { loss, clipped, meanKl };
  });
}

/**
 * Identity in the forward pass, zero gradient: π_old = sg(π_θ) when the old policy is the current one
 * (μ = 1), saving a separate forward.
 */
export const stopGradient = tf.customGrad(((x: tf.Tensor) => ({
  value: tf.clone(x),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (x: tf.Tensor2D) => tf.Tensor2D;
