/**
 * The multi-attempt trainer (packages/training/README.md, "Several attempts"): samples G rollouts per prompt —
 * attempt, the verifier's feedback tokens, attempt, … up to K attempts or the first correct one — weights every
 * attempt's tokens by its arm's weight (Eq. M9; with 'cal-rredcot' times σ_t |a_k| inside the attempt), masks the
 * feedback tokens out of the loss and takes one policy-gradient step (μ = 1, so the ratio is 1: REINFORCE with the
 * arm's baselines).
 */
import { tf } from '@rred/engine';
import { mean, Rng, UserError } from '@rred/core';
import { buildTrace, type LanguageModel, type SampleResult, type Trace, type TraceTokenizer } from '@rred/lm';
import type { TrainablePolicy } from '../policy';
import { AdamW, clipAndApply } from '../optimizer';
import { learningRateAt } from '../schedule';
import { buildBatch, disposeBatch } from '../batching';
import { DataOrder } from '../data-order';
import { sampleStd } from '../advantages';
import { policyLoss, stopGradient } from '../grpo-loss';
import type { RedistributionHook } from '../grpo';
import { attemptWeights, successByK } from './attempt-weights';
import type { MultiAttemptConfig } from './config';

/** A training prompt: `<bos>` problem `<think>` tokens and the expected answer. */
export interface MultiAttemptPrompt {
  id: string;
  tokens: number[];
  answer: string;
}

export interface MultiAttemptSetup {
  policy: TrainablePolicy;
  sampler: Pick<LanguageModel, 'sample'>;
  prompts: MultiAttemptPrompt[];
  /** ζ of one attempt (r_k ∈ {0, 1}) and the answer it gave. */
  attemptReward: (prompt: MultiAttemptPrompt, attempt: number[], stopped: boolean) => { reward: number; answer: string | null };
  /** The tokens the verifier writes after a wrong attempt (they open the next one). */
  feedback: number[];
  tokenizer: TraceTokenizer & { eos: number; pad: number };
  contextLength: number;
  /**
   * 'cal-rredcot': σ per token of each attempt, called with one trace per attempt whose prompt is h_{k−1} (the prompt,
   * the earlier attempts and the feedback: never generated tokens) and whose completion is a_k; `advantages` are the
   * attempt weights. Each row should sum to 1 (Eq. 11 inside the attempt).
   */
  redistribute?: RedistributionHook;
}

/** One sampled rollout: its attempts, their rewards, and the layout of the whole completion. */
interface MultiAttemptRollout {
  prompt: MultiAttemptPrompt;
  attempts: SampleResult[];
  /** r_1..r_τ. */
  rewards: number[];
  answers: (string | null)[];
  /** attempts and feedback concatenated. */
  completion: number[];
  /** Start of each attempt in `completion`. */
  attemptStarts: number[];
  /** Positions of `completion` the verifier wrote. */
  feedbackPositions: number[];
}

interface MultiAttemptStepMetrics {
  step: number;
  /** Mean S over the step's rollouts (Verification@K on the training prompts). */
  verificationAtK: number;
  /** Mean r_1. */
  passAt1: number;
  /** Mean τ. */
  attemptsUsed: number;
  completionLength: number;
  loss: number;
  gradNorm: number;
  lr: number;
  stepMs: number;
}

/**
 * Samples up to K attempts for each row (all rows of one attempt in one sampler call); a wrong attempt is followed by
 * the feedback when another attempt still fits the context.
 */
export async function sampleRollouts(
  setup: Pick<MultiAttemptSetup, 'sampler' | 'attemptReward' | 'feedback' | 'tokenizer' | 'contextLength'>,
  rows: MultiAttemptPrompt[],
  options: { attempts: number; maxNewTokensPerAttempt: number; temperature: number },
  rng: Rng,
): Promise<MultiAttemptRollout[]> {
  const out: MultiAttemptRollout[] = rows.map((prompt) => ({
    prompt,
    attempts: [],
    rewards: [],
    answers: [],
    completion: [],
    attemptStarts: [],
    feedbackPositions: [],
  }));
  let live = out.map((_, i) => i);
  for (let k = 0; k < options.attempts && live.length > 0; k++) {
    if (k > 0) {
      // the verifier writes its feedback where another attempt of ≥ 1 token still fits; elsewhere the rollout ends
      live = live.filter((i) => rows[i].tokens.length + out[i].completion.length + setup.feedback.length < setup.contextLength);
      for (const i of live) {
        const r = out[i];
        for (let j = 0; j < setup.feedback.length; j++) r.feedbackPositions.push(r.completion.length + j);
        r.completion.push(...setup.feedback);
      }
      if (live.length === 0) break;
    }
    const contexts = live.map((i) => [...rows[i].tokens, ...out[i].completion]);
    const room = Math.min(...contexts.map((c) => setup.contextLength - c.length));
    const { results } = await setup.sampler.sample(
      contexts,
      {
        temperature: options.temperature,
        topP: 1,
        maxNewTokens: Math.min(options.maxNewTokensPerAttempt, room),
        stopToken: setup.tokenizer.eos,
      },
      rng.fork(`attempt-${k}`),
    );
    live.forEach((i, j) => {
      const r = out[i];
      const res = results[j];
      const v = setup.attemptReward(rows[i], res.tokens, !res.truncated);
      if (v.reward !== 0 && v.reward !== 1) throw new Error(`attempt reward for prompt ${rows[i].id} is ${v.reward}; expected 0 or 1`);
      r.attemptStarts.push(r.completion.length);
      r.completion.push(...res.tokens);
      r.attempts.push(res);
      r.rewards.push(v.reward);
      r.answers.push(v.answer);
    });
    live = live.filter((i) => out[i].rewards[k] === 0);
  }
  return out;
}

export class MultiAttemptTrainer {
  readonly optimizer: AdamW;
  private readonly order: DataOrder;
  private stepIndex = 0;
  private readonly rng: Rng;

  constructor(
    private readonly setup: MultiAttemptSetup,
    readonly config: MultiAttemptConfig,
  ) {
    if (setup.prompts.length === 0) throw new UserError('multi-attempt training: no training prompts');
    if (config.arm === 'cal-rredcot' && !setup.redistribute)
      throw new UserError("multi-attempt arm 'cal-rredcot' needs a redistribution hook");
    const o = config.optimizer;
    this.optimizer = new AdamW({ beta1: o.beta1, beta2: o.beta2, epsilon: o.epsilon, weightDecay: o.weightDecay });
    this.rng = new Rng(config.seed);
    this.order = new DataOrder(this.rng.fork('prompts'), setup.prompts.length);
  }

  get step(): number {
    return this.stepIndex;
  }

  /** Coefficient Â per completion token (Eq. M9): the attempt's weight / s (× σ_t |a_k| for cal-rredcot), 0 on feedback. */
  async coefficients(rollouts: MultiAttemptRollout[]): Promise<number[][]> {
    const { config } = this;
    const weights = attemptWeights(
      config.arm,
      rollouts.map((r) => r.rewards),
      config.groupSize,
    );
    const s = config.scaleRewards === 'batch' ? sampleStd(rollouts.map((r) => successByK(r.rewards))) + 1e-4 : 1; // Eq. M9
    let sigma: number[][] | null = null;
    if (config.arm === 'cal-rredcot') sigma = await this.attemptSigma(rollouts, weights);
    let row = 0;
    return rollouts.map((r, i) => {
      const c = new Array<number>(r.completion.length).fill(0);
      r.attempts.forEach((a, k) => {
        const sg = sigma ? sigma[row++] : null;
        for (let t = 0; t < a.tokens.length; t++) c[r.attemptStarts[k] + t] = (weights[i][k] / s) * (sg ? sg[t] * a.tokens.length : 1); // Eq. M9
      });
      return c;
    });
  }

  /** σ inside each attempt from the hook: one trace per attempt, prompt = h_{k−1}. */
  private async attemptSigma(rollouts: MultiAttemptRollout[], weights: number[][]): Promise<number[][]> {
    const traces: Trace[] = [];
    const advantages: number[] = [];
    rollouts.forEach((r, i) =>
      r.attempts.forEach((a, k) => {
        const prompt = [...r.prompt.tokens, ...r.completion.slice(0, r.attemptStarts[k])];
        traces.push(
          buildTrace(this.setup.tokenizer, { problemId: r.prompt.id, prompt, sample: a, answer: r.answers[k], reward: r.rewards[k] }),
        );
        advantages.push(weights[i][k]);
      }),
    );
    const sigma = await this.setup.redistribute!(traces, {
      step: this.stepIndex,
      rng: this.rng.fork(`redistribute-${this.stepIndex}`),
      advantages,
    });
    sigma.forEach((row, j) => {
      if (row.length !== traces[j].completion.length || row.some((x) => !Number.isFinite(x)))
        throw new Error(`redistribution: attempt trace ${j} needs ${traces[j].completion.length} finite weights`);
    });
    return sigma;
  }

  async trainStep(): Promise<MultiAttemptStepMetrics> {
    const t0 = Date.now();
    const { config, setup } = this;
    const picks = this.order.take(config.promptsPerStep).map((p) => setup.prompts[p.index]);
    const rows = picks.flatMap((p) => Array.from({ length: config.groupSize }, () => p));
    const rollouts = await sampleRollouts(setup, rows, config, this.rng.fork(`sample-${this.stepIndex}`));
    const coefficients = await this.coefficients(rollouts);
    const lr = learningRateAt(this.stepIndex, {
      peak: config.optimizer.lr,
      warmupSteps: config.optimizer.warmupSteps,
      totalSteps: config.steps,
      minLrRatio: config.optimizer.minLrRatio,
    });
    const { loss, gradNorm } = this.update(rollouts, coefficients, lr);
    this.stepIndex += 1;
    return {
      step: this.stepIndex,
      verificationAtK: mean(rollouts.map((r) => successByK(r.rewards))),
      passAt1: mean(rollouts.map((r) => r.rewards[0])),
      attemptsUsed: mean(rollouts.map((r) => r.rewards.length)),
      completionLength: mean(rollouts.map((r) => r.completion.length)),
      loss,
      gradNorm,
      lr,
      stepMs: Date.now() - t0,
    };
  }

  /** One optimizer update: the clipped-ratio loss at ratio 1 over the masked rollout tokens. */
  private update(rollouts: MultiAttemptRollout[], coefficients: number[][], lr: number): { loss: number; gradNorm: number } {
    const { config, setup } = this;
    const batch = buildBatch(
      rollouts.map((r) => ({ prompt: r.prompt.tokens, completion: r.completion, untrained: r.feedbackPositions })),
      setup.contextLength,
      setup.tokenizer.pad,
    );
    const [N, T] = batch.inputs.shape;
    const coeff = new Float32Array(N * T);
    rollouts.forEach((r, b) => {
      const P = r.prompt.tokens.length;
      // target position p predicts sequence token p + 1, i.e. completion token p + 1 − |prompt|
      for (let p = P - 1; p < T; p++) {
        const c = p + 1 - P;
        if (c < r.completion.length) coeff[b * T + p] = coefficients[b][c];
      }
    });
    const coefTensor = tf.tensor2d(coeff, [N, T], 'float32');
    try {
      const { value, grads } = tf.variableGrads(() => {
        const logprobs = setup.policy.tokenLogprobs(batch.inputs, batch.targets); // [N, T]
        const out = policyLoss(
          { logprobs, oldLogprobs: stopGradient(logprobs), mask: batch.mask, coefficients: coefTensor },
          {
            lossType: config.lossType,
            importanceSampling: 'token',
            epsilon: 0.2,
            epsilonHigh: 0.2,
            beta: 0,
            maxCompletionLength: config.attempts * config.maxNewTokensPerAttempt,
            dapoActiveTokens: 0,
          },
        );
        out.clipped.dispose();
        out.meanKl.dispose();
        return out.loss;
      }, setup.policy.variables);
      const loss = value.dataSync()[0];
      value.dispose();
      const gradNorm = clipAndApply(
        this.optimizer,
        setup.policy.variables,
        grads,
        loss,
        { gradClip: config.optimizer.gradClip, lr },
        `multi-attempt step ${this.stepIndex}`,
      );
      return { loss, gradNorm };
    } finally {
      coefTensor.dispose();
      disposeBatch(batch);
    }
  }
}
