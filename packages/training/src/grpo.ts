import { tf } from '@rred/engine';
import { mean, Rng, UserError } from '@rred/core';
import { buildTrace, type LanguageModel, type SampleResult, type SequenceCache, type Trace, type TraceTokenizer } from '@rred/lm';
import type { TrainablePolicy } from './policy';
import type { GrpoConfig } from './configs/grpo';
import { AdamW, clipAndApply } from './optimizer';
import { learningRateAt } from './schedule';
import { buildBatch, disposeBatch, type SftExample, type TokenBatch } from './batching';
import { sftLoss } from './sft';
import { DataOrder, type DataPosition } from './data-order';
import { groupAdvantages, sampleStd, zeroStdGroupFraction } from './advantages';
import { policyLoss, stopGradient } from './grpo-loss';
import { captureWeights, readTrainerState, restoreWeights, writeTrainerState } from './trainer-state';
import { verigateGroupAdvantages, type StepScores } from './verigate';

/** A training prompt: `<bos>` problem `<think>` tokens and whatever the reward function needs. */
export interface GrpoPrompt {
  id: string;
  tokens: number[];
  /** Expected answer (or other data) for the reward function. */
  answer?: string;
}

/** Verifier outcome of one completion: ζ and the parsed answer the trace records. */
interface RewardResult {
  reward: number;
  answer: string | null;
}

export type RewardFn = (prompt: GrpoPrompt, completion: number[], stopped: boolean) => RewardResult;

/**
 * Token weights σ for each trace's completion tokens (estimators/src/sigma.ts builds them): out[i].length must equal
 * traces[i].completion.length. The estimators package provides these (rredcot, mc, loo, gradient);
 * returning 1/|o_i| everywhere reproduces plain GRPO.
 */
export type RedistributionHook = ((
  traces: Trace[],
  context: {
    step: number;
    rng: Rng;
    /** Group-relative advantage of each trace; a trace with A = 0 gets no gradient whatever σ is. */
    advantages: number[];
    /**
     * With `usesSamplerCache`: each trace's sampler cache (`SampleResult.cache`; undefined where the
     * sampler kept none), to hand to `ScoreJob.cache`. The trainer releases them all when the hook returns.
     */
    caches?: (SequenceCache | undefined)[];
  },
) => Promise<number[][]>) & {
  /**
   * The cache handoff: when true, the trainer samples with `keepCache` and passes the caches in
   * `context.caches`, so a scoring hook forwards only its suffixes. Memory: one K/V cache per trace
   * from sampling until the hook returns. Absent = false.
   */
  readonly usesSamplerCache?: boolean;
};

/**
 * Process scores for VeriGate (`processAdvantage: 'verigate'`): for every trace with `gated[i]` (its
 * group's verifier rewards all coincide), its steps and their scores, or null when it cannot be scored
 * (it then gets advantage 0); entries of ungated traces are ignored (return null). Called every step (all
 * gated[i] false when no group is degenerate), so a hook's per-call statistics are never stale.
 */
export type StepScoreHook = (
  traces: Trace[],
  context: { step: number; rng: Rng; gated: boolean[]; rewards: readonly number[] },
) => Promise<(StepScores | null)[]>;

export interface GrpoSetup {
  policy: TrainablePolicy;
  /** Samples from the same weights as `policy` (e.g. TransformerLM over the same Transformer). */
  sampler: Pick<LanguageModel, 'sample'>;
  prompts: GrpoPrompt[];
  reward: RewardFn;
  /** Special-token ids and the decoder the traces need (the lm Tokenizer fits). */
  tokenizer: TraceTokenizer & { eos: number; pad: number };
  contextLength: number;
  /** Frozen reference policy for the KL term (needed when beta > 0). */
  reference?: TrainablePolicy;
  /** Needed when config.redistribution ≠ 'none'. */
  redistribute?: RedistributionHook;
  /** Needed when config.processAdvantage is 'verigate'. */
  stepScores?: StepScoreHook;
  /**
   * Needed when config.referenceSft > 0: the dataset reference completion of a prompt (solution `</think>`
   * answer `<eos>` as token ids), or null when it has none (that prompt then adds no SFT term).
   */
  referenceCompletion?: (prompt: GrpoPrompt) => number[] | null;
}

/** One generated batch: G completions per prompt, rewards, advantages and token coefficients. */
export interface RolloutBatch {
  traces: Trace[];
  rewards: number[];
  advantages: number[];
  /** σ per completion token (uniform 1/|o| when redistribution is 'none'). */
  sigma: number[][];
  /**
   * Â_{i,t} per completion token: A_i when 'none', else A_i · σ_{i,t} · |o_i| (σ from the hook); under VeriGate the
   * tokens of a degenerate group get its process advantages instead (verigate.ts).
   */
  coefficients: number[][];
  truncated: boolean[];
  /** With config.referenceSft > 0: the reference completions of the step's prompts, one per prompt that has one. */
  references?: SftExample[];
}

export interface GrpoStepMetrics {
  step: number;
  rewardMean: number;
  rewardStd: number;
  zeroStdGroups: number;
  completionLength: number;
  truncatedFraction: number;
  /** Fraction of active tokens whose clipped term was selected, averaged over the μ updates. */
  clippedFraction: number;
  kl: number;
  /** Mean over completions of the entropy of |σ|/Σ|σ| (log|o| for uniform σ). */
  sigmaEntropy: number;
  /**
   * Σ_t σ_t over the completions with A_i ≠ 0: mean, min and max (NaN when every A_i = 0). Return
   * equivalence (Sec. 3.3) needs 1 for every completion; signed L1 σ leaves it anywhere in [−1, 1].
   */
  sigmaSumMean: number;
  sigmaSumMin: number;
  sigmaSumMax: number;
  loss: number;
  gradNorm: number;
  lr: number;
  /** With config.referenceSft > 0: mean NLL (nats per token) of the step's reference completions before the last update. */
  referenceNll?: number;
  stepMs: number;
  sampleMs: number;
  redistributionMs: number;
}

/**
 * GRPO (DeepSeekMath) with token weights σ from a redistribution hook. `trainStep` = sample G completions for each
 * of `promptsPerStep` prompts, reward them, compute group-relative advantages and token weights, then
 * μ = numIterations optimizer updates on that batch (π_old = the policy at sampling time). The lr
 * schedule runs over steps × μ updates.
 */
export class GrpoTrainer {
  readonly optimizer: AdamW;
  private order: DataOrder;
  private stepIndex = 0;
  private updates = 0;
  private readonly rng: Rng;

  constructor(
    private readonly setup: GrpoSetup,
    readonly config: GrpoConfig,
  ) {
    if (setup.prompts.length === 0) throw new UserError('GRPO: no training prompts');
    if (config.beta > 0 && !setup.reference) throw new UserError(`GRPO: beta = ${config.beta} needs a reference policy`);
    if (config.redistribution !== 'none' && !setup.redistribute)
      throw new UserError(`GRPO: redistribution '${config.redistribution}' needs a redistribution hook`);
    if (config.processAdvantage === 'verigate' && !setup.stepScores)
      throw new UserError("GRPO: processAdvantage 'verigate' needs a step-score hook (setup.stepScores)");
    if (config.referenceSft > 0 && !setup.referenceCompletion)
      throw new UserError(
        `GRPO: referenceSft = ${config.referenceSft} needs the prompts' reference completions (setup.referenceCompletion)`,
      );
    const o = config.optimizer;
    this.optimizer = new AdamW({ beta1: o.beta1, beta2: o.beta2, epsilon: o.epsilon, weightDecay: o.weightDecay });
    this.rng = new Rng(config.seed);
    this.order = new DataOrder(this.rng.fork('grpo-prompts'), setup.prompts.length);
  }

  get step(): number {
    return this.stepIndex;
  }

  get dataPosition(): DataPosition {
    return { ...this.order.position };
  }

  /** Samples and scores the next batch of prompts (advances the prompt order). */
  async generate(): Promise<RolloutBatch & { sampleMs: number; redistributionMs: number }> {
    const { config, setup } = this;
    const G = config.groupSize;
    const picks = this.order.take(config.promptsPerStep).map((p) => setup.prompts[p.index]);
    const rows = picks.flatMap((p) => Array.from({ length: G }, () => p));
    const longestPrompt = Math.max(...rows.map((r) => r.tokens.length));
    const maxNewTokens = Math.min(config.maxNewTokens, setup.contextLength - longestPrompt);
    if (maxNewTokens < 1)
      throw new UserError(`GRPO: a prompt of ${longestPrompt} tokens leaves no room in contextLength ${setup.contextLength}`);
    const t0 = Date.now();
    const handoff = config.redistribution !== 'none' && setup.redistribute?.usesSamplerCache === true;
    const { results } = await setup.sampler.sample(
      rows.map((r) => r.tokens),
      {
        temperature: config.temperature,
        topP: config.topP,
        maxNewTokens,
        stopToken: setup.tokenizer.eos,
        ...(handoff ? { keepCache: true } : {}),
      },
      this.rng.fork(`sample-${this.stepIndex}`),
    );
    const sampleMs = Date.now() - t0;
    const traces = results.map((res, i) => this.toTrace(rows[i], res));
    const rewards = traces.map((t) => t.reward);
    const advantages = groupAdvantages(rewards, G, config.scaleRewards);
    const t1 = Date.now();
    let sigma: number[][];
    if (config.redistribution === 'none') {
      sigma = traces.map((t) => t.completion.map(() => 1 / Math.max(1, t.completion.length)));
    } else {
      try {
        sigma = await setup.redistribute!(traces, {
          step: this.stepIndex,
          rng: this.rng.fork(`redistribute-${this.stepIndex}`),
          advantages,
          ...(handoff ? { caches: results.map((r) => r.cache) } : {}),
        });
      } finally {
        for (const r of results) r.cache?.release();
      }
      checkSigma(sigma, traces);
    }
    const coefficients = traces.map((t, i) =>
      config.redistribution === 'none'
        ? t.completion.map(() => advantages[i])
        : sigma[i].map((s) => advantages[i] * s * t.completion.length),
    );
    if (config.processAdvantage === 'verigate') await this.verigate(traces, rewards, coefficients);
    const redistributionMs = Date.now() - t1;
    const references =
      config.referenceSft > 0
        ? picks.flatMap((p) => {
            const completion = setup.referenceCompletion!(p);
            return completion && completion.length > 0 ? [{ prompt: p.tokens, completion }] : [];
          })
        : undefined;
    return {
      traces,
      rewards,
      advantages,
      sigma,
      coefficients,
      truncated: results.map((r) => r.truncated),
      sampleMs,
      redistributionMs,
      ...(references ? { references } : {}),
    };
  }

  /** VeriGate: replaces the coefficients of every degenerate group (all rewards equal) by its process advantages. */
  private async verigate(traces: Trace[], rewards: number[], coefficients: number[][]): Promise<void> {
    const G = this.config.groupSize;
    const groupOf = (i: number) => rewards.slice(i - (i % G), i - (i % G) + G);
    const gated = traces.map((_, i) => groupOf(i).every((r) => r === rewards[i]));
    const scores = await this.setup.stepScores!(traces, {
      step: this.stepIndex,
      rng: this.rng.fork(`step-scores-${this.stepIndex}`),
      gated,
      rewards,
    });
    if (scores.length !== traces.length) throw new Error(`step scores: ${scores.length} rows for ${traces.length} traces`);
    for (let g = 0; g < traces.length; g += G) {
      if (!gated[g]) continue;
      const idx = Array.from({ length: G }, (_, j) => g + j);
      const rows = verigateGroupAdvantages(
        idx.map((i) => scores[i]),
        idx.map((i) => traces[i].completion.length),
        this.config.verigateOrder,
        this.config.verigateScale,
      );
      idx.forEach((i, j) => (coefficients[i] = rows[j]));
    }
  }

  async trainStep(): Promise<GrpoStepMetrics> {
    const t0 = Date.now();
    const batch = await this.generate();
    const m = this.update(batch);
    return { ...m, stepMs: Date.now() - t0, sampleMs: batch.sampleMs, redistributionMs: batch.redistributionMs };
  }

  /** μ optimizer updates on one generated batch; advances the step. */
  update(batch: RolloutBatch): Omit<GrpoStepMetrics, 'stepMs' | 'sampleMs' | 'redistributionMs'> {
    const { config } = this;
    const micro = this.microBatches(batch);
    const sft =
      batch.references && batch.references.length > 0
        ? buildBatch(batch.references, this.setup.contextLength, this.setup.tokenizer.pad)
        : null;
    try {
      // π_old: with μ = 1 the current policy is π_old (stop-gradient inside the loss, no extra
      // forward); with μ > 1 it is frozen now, before the first update.
      const old = config.numIterations > 1 ? micro.map((mb) => this.setup.policy.tokenLogprobs(mb.tokens.inputs, mb.tokens.targets)) : null;
      const ref = config.beta > 0 ? micro.map((mb) => this.setup.reference!.tokenLogprobs(mb.tokens.inputs, mb.tokens.targets)) : null;
      let clipped = 0;
      let active = 0;
      let klSum = 0;
      let loss = 0;
      let gradNorm = 0;
      let lr = 0;
      let referenceNll = NaN;
      for (let iter = 0; iter < config.numIterations; iter++) {
        lr = learningRateAt(this.updates, {
          peak: config.optimizer.lr,
          warmupSteps: config.optimizer.warmupSteps,
          totalSteps: config.steps * config.numIterations,
          minLrRatio: config.optimizer.minLrRatio,
        });
        const result = this.lossAndGradients(micro, old, ref);
        if (sft) {
          referenceNll = this.addReferenceSft(result, sft);
          result.loss += config.referenceSft * referenceNll;
        }
        const norm = clipAndApply(
          this.optimizer,
          this.setup.policy.variables,
          result.grads,
          result.loss,
          { gradClip: config.optimizer.gradClip, lr },
          `GRPO step ${this.stepIndex}`,
        );
        this.updates += 1;
        clipped += result.clipped;
        active += result.activeTokens;
        klSum += result.kl * result.activeTokens;
        loss = result.loss;
        gradNorm = norm;
      }
      old?.forEach((t) => t.dispose());
      ref?.forEach((t) => t.dispose());
      this.stepIndex += 1;
      const lengths = batch.traces.map((t) => t.completion.length);
      return {
        step: this.stepIndex,
        rewardMean: mean(batch.rewards),
        rewardStd: sampleStd(batch.rewards),
        zeroStdGroups: zeroStdGroupFraction(batch.rewards, config.groupSize),
        completionLength: mean(lengths),
        truncatedFraction: mean(batch.truncated.map((t) => (t ? 1 : 0))),
        clippedFraction: active > 0 ? clipped / active : 0,
        kl: active > 0 ? klSum / active : 0,
        sigmaEntropy: mean(batch.sigma.map(weightEntropy)),
        ...sigmaSums(batch),
        loss,
        gradNorm,
        lr,
        ...(config.referenceSft > 0 ? { referenceNll } : {}),
      };
    } finally {
      micro.forEach((mb) => disposeRolloutTensors(mb));
      if (sft) disposeBatch(sft);
    }
  }

  /**
   * The reference SFT term: adds the gradients of λ · NLL(references) (λ = config.referenceSft; NLL the
   * masked mean over the reference completion tokens, as SftTrainer's loss) to `result.grads`; returns the NLL.
   */
  private addReferenceSft(result: { grads: Record<string, tf.Tensor> }, batch: TokenBatch): number {
    const lambda = this.config.referenceSft;
    let nll = NaN;
    const { value, grads } = tf.variableGrads(() => {
      const l = sftLoss(this.setup.policy, batch.inputs, batch.targets, batch.mask);
      nll = l.dataSync()[0];
      return tf.mul(l, lambda) as tf.Scalar;
    }, this.setup.policy.variables);
    value.dispose();
    for (const [name, g] of Object.entries(grads)) {
      const prev = result.grads[name];
      if (!prev) {
        result.grads[name] = g;
        continue;
      }
      result.grads[name] = tf.add(prev, g);
      prev.dispose();
      g.dispose();
    }
    return nll;
  }

  /**
   * Loss and gradients of one update over all micro-batches. grpo/bnpo/dr_grpo average the
   * micro-batch losses (each is already a mean); dapo sums them, its normalizer being the active
   * tokens of the whole accumulated batch. Exposed for tests.
   */
  lossAndGradients(
    micro: RolloutTensors[],
    old: tf.Tensor2D[] | null,
    ref: tf.Tensor2D[] | null,
  ): { loss: number; grads: Record<string, tf.Tensor>; clipped: number; activeTokens: number; kl: number } {
    const { config } = this;
    const activeTokens = micro.reduce((a, mb) => a + mb.activeTokens, 0);
    const scale = config.lossType === 'dapo' ? 1 : 1 / micro.length;
    let total: Record<string, tf.Tensor> = {};
    let loss = 0;
    let clipped = 0;
    let klWeighted = 0;
    micro.forEach((mb, m) => {
      let stats: { clipped: number; kl: number } = { clipped: 0, kl: 0 };
      const { value, grads } = tf.variableGrads(() => {
        const logprobs = this.setup.policy.tokenLogprobs(mb.tokens.inputs, mb.tokens.targets); // [N, T]
        const out = policyLoss(
          {
            logprobs,
            oldLogprobs: old ? old[m] : stopGradient(logprobs),
            refLogprobs: ref ? ref[m] : undefined,
            mask: mb.tokens.mask,
            coefficients: mb.coefficients,
          },
          {
            lossType: config.lossType,
            importanceSampling: config.importanceSampling,
            epsilon: config.epsilon,
            epsilonHigh: config.epsilonHigh ?? config.epsilon,
            beta: config.beta,
            maxCompletionLength: config.maxNewTokens,
            dapoActiveTokens: activeTokens,
          },
        );
        stats = { clipped: out.clipped.dataSync()[0], kl: out.meanKl.dataSync()[0] };
        out.clipped.dispose();
        out.meanKl.dispose();
        return tf.mul(out.loss, scale) as tf.Scalar;
      }, this.setup.policy.variables);
      loss += value.dataSync()[0];
      value.dispose();
      clipped += stats.clipped;
      klWeighted += stats.kl * mb.activeTokens;
      if (m === 0) total = grads;
      else {
        for (const [name, g] of Object.entries(grads)) {
          const sum = tf.add(total[name], g);
          total[name].dispose();
          g.dispose();
          total[name] = sum;
        }
      }
    });
    return { loss, grads: total, clipped, activeTokens, kl: activeTokens > 0 ? klWeighted / activeTokens : 0 };
  }

  /** Tensors of the batch, split into gradientAccumulationSteps micro-batches of whole groups. */
  microBatches(batch: RolloutBatch): RolloutTensors[] {
    const M = this.config.gradientAccumulationSteps;
    const rowsPer = batch.traces.length / M;
    return Array.from({ length: M }, (_, m) => {
      const idx = Array.from({ length: rowsPer }, (_, j) => m * rowsPer + j);
      return rolloutTensors(
        idx.map((i) => batch.traces[i]),
        idx.map((i) => batch.coefficients[i]),
        this.setup.contextLength,
        this.setup.tokenizer.pad,
      );
    });
  }

  save(file: string, info: Record<string, unknown> = {}): void {
    writeTrainerState(file, {
      step: this.stepIndex,
      info: { ...info, kind: 'grpo', dataPosition: this.order.position, seed: this.config.seed, updates: this.updates },
      weights: captureWeights(this.setup.policy.variables),
      optimizer: this.optimizer.getState(),
    });
  }

  restore(file: string): Record<string, unknown> {
    const state = readTrainerState(file);
    if (state.info.kind !== 'grpo') throw new UserError(`'${file}' is not a GRPO trainer state (kind ${String(state.info.kind)})`);
    if (state.info.seed !== this.config.seed)
      throw new UserError(`'${file}' was written with seed ${String(state.info.seed)}, the config says seed ${this.config.seed}`);
    restoreWeights(this.setup.policy.variables, state.weights, file);
    this.optimizer.setState(state.optimizer);
    this.stepIndex = state.step;
    this.updates = Number(state.info.updates);
    this.order = new DataOrder(this.rng.fork('grpo-prompts'), this.setup.prompts.length, state.info.dataPosition as DataPosition);
    return state.info;
  }

  private toTrace(prompt: GrpoPrompt, res: SampleResult): Trace {
    const r = this.setup.reward(prompt, res.tokens, !res.truncated);
    if (!Number.isFinite(r.reward)) throw new Error(`reward for prompt ${prompt.id} is ${r.reward}`);
    return buildTrace(this.setup.tokenizer, {
      problemId: prompt.id,
      prompt: prompt.tokens,
      sample: res,
      answer: r.answer,
      reward: r.reward,
    });
  }
}

/** Teacher-forcing tensors of a set of rollouts plus the per-token coefficient tensor. */
interface RolloutTensors {
  tokens: TokenBatch;
  coefficients: tf.Tensor2D; // [N, T], aligned with tokens.targets
  activeTokens: number;
}

function rolloutTensors(traces: Trace[], coefficients: number[][], contextLength: number, padId: number): RolloutTensors {
  const tokens = buildBatch(
    traces.map((t) => ({ prompt: t.prompt, completion: t.completion })),
    contextLength,
    padId,
  );
  const [N, T] = tokens.inputs.shape;
  const coeff = new Float32Array(N * T);
  traces.forEach((t, b) => {
    // target position p predicts sequence token p + 1, i.e. completion token p + 1 − |prompt|
    for (let p = t.prompt.length - 1; p < T; p++) {
      const c = p + 1 - t.prompt.length;
      if (c < t.completion.length) coeff[b * T + p] = coefficients[b][c];
    }
  });
  const activeTokens = tokens.completionLengths.reduce((a, b) => a + b, 0);
  return { tokens, coefficients: tf.tensor2d(coeff, [N, T], 'float32'), activeTokens };
}

function disposeRolloutTensors(r: RolloutTensors): void {
  disposeBatch(r.tokens);
  r.coefficients.dispose();
}

function checkSigma(sigma: number[][], traces: Trace[]): void {
  if (sigma.length !== traces.length) throw new Error(`redistribution returned ${sigma.length} weight rows for ${traces.length} traces`);
  sigma.forEach((row, i) => {
    if (row.length !== traces[i].completion.length)
      throw new Error(`redistribution: trace ${i} has ${traces[i].completion.length} completion tokens but ${row.length} weights`);
    const bad = row.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new Error(`redistribution: trace ${i} weight ${bad} is ${row[bad]}`);
  });
}

function sigmaSums(batch: RolloutBatch): Pick<GrpoStepMetrics, 'sigmaSumMean' | 'sigmaSumMin' | 'sigmaSumMax'> {
  const sums = batch.sigma.flatMap((row, i) => (batch.advantages[i] !== 0 ? [row.reduce((a, b) => a + b, 0)] : []));
  if (sums.length === 0) return { sigmaSumMean: NaN, sigmaSumMin: NaN, sigmaSumMax: NaN };
  return { sigmaSumMean: mean(sums), sigmaSumMin: Math.min(...sums), sigmaSumMax: Math.max(...sums) };
}

function weightEntropy(sigma: number[]): number {
  const total = sigma.reduce((a, s) => a + Math.abs(s), 0);
  if (!(total > 0)) return 0;
  let h = 0;
  for (const s of sigma) {
    const p = Math.abs(s) / total;
    if (p > 0) h -= p * Math.log(p);
  }
  return h;
}
