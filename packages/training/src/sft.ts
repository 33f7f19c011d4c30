import { tf } from '@rred/engine';
import { Rng, UserError } from '@rred/core';
import type { TrainablePolicy } from './policy';
import type { SftConfig } from './configs/sft';
import { AdamW, clipAndApply } from './optimizer';
import { learningRateAt } from './schedule';
import { buildBatch, disposeBatch, type SftExample } from './batching';
import { DataOrder, type DataPosition } from './data-order';
import { captureWeights, readTrainerState, restoreWeights, writeTrainerState } from './trainer-state';

/**
 * The training set: `size` examples, and example i as drawn for a given epoch (a corpus may redraw
 * solutions every epoch; a fixed array ignores the epoch).
 */
export interface SftCorpus {
  readonly size: number;
  example(epoch: number, index: number): SftExample;
}

/** A fixed list of examples as a corpus. */
function fixedCorpus(examples: SftExample[]): SftCorpus {
  return { size: examples.length, example: (_epoch, index) => examples[index] };
}

export interface SftStepMetrics {
  step: number;
  /** Mean NLL (nats) over the completion tokens of the batch, before the update. */
  loss: number;
  /** Global grad norm before clipping. */
  gradNorm: number;
  lr: number;
  /** Completion tokens trained on in this step. */
  tokens: number;
}

/**
 * Supervised fine-tuning: loss = −(1/N) Σ_{b,t} mask[b,t] · log p(target[b,t] | input[b,≤t]), with N
 * the number of completion tokens in the batch (prompt tokens and padding are masked out).
 * Data order, optimizer and step live here; the state round-trips through `save`/`restore` so a
 * resumed run produces the same numbers as an uninterrupted one.
 */
export class SftTrainer {
  readonly optimizer: AdamW;
  private order: DataOrder;
  private readonly corpus: SftCorpus;
  private stepIndex = 0;

  constructor(
    readonly policy: TrainablePolicy,
    examples: SftExample[] | SftCorpus,
    readonly config: SftConfig,
    private readonly padId: number,
  ) {
    this.corpus = Array.isArray(examples) ? fixedCorpus(examples) : examples;
    if (this.corpus.size === 0) throw new UserError('SFT: the training set is empty');
    const o = config.optimizer;
    this.optimizer = new AdamW({ beta1: o.beta1, beta2: o.beta2, epsilon: o.epsilon, weightDecay: o.weightDecay });
    this.order = new DataOrder(new Rng(config.seed).fork('sft-data'), this.corpus.size);
  }

  get step(): number {
    return this.stepIndex;
  }

  get dataPosition(): DataPosition {
    return { ...this.order.position };
  }

  /** Mean completion NLL of a batch without updating (for validation loss). */
  evaluateLoss(examples: SftExample[]): number {
    const batch = buildBatch(examples, this.config.contextLength, this.padId);
    try {
      return tf.tidy(() => sftLoss(this.policy, batch.inputs, batch.targets, batch.mask).dataSync()[0]);
    } finally {
      disposeBatch(batch);
    }
  }

  trainStep(): SftStepMetrics {
    const lr = learningRateAt(this.stepIndex, {
      peak: this.config.optimizer.lr,
      warmupSteps: this.config.optimizer.warmupSteps,
      totalSteps: this.config.steps,
      minLrRatio: this.config.optimizer.minLrRatio,
    });
    const picks = this.order.take(this.config.batchSize);
    const batch = buildBatch(
      picks.map((p) => this.corpus.example(p.epoch, p.index)),
      this.config.contextLength,
      this.padId,
    );
    const tokens = batch.completionLengths.reduce((a, b) => a + b, 0);
    try {
      const { value, grads } = tf.variableGrads(() => sftLoss(this.policy, batch.inputs, batch.targets, batch.mask), this.policy.variables);
      const loss = value.dataSync()[0];
      value.dispose();
      const gradNorm = clipAndApply(
        this.optimizer,
        this.policy.variables,
        grads,
        loss,
        { gradClip: this.config.optimizer.gradClip, lr },
        `SFT step ${this.stepIndex}`,
      );
      this.stepIndex += 1;
      return { step: this.stepIndex, loss, gradNorm, lr, tokens };
    } finally {
      disposeBatch(batch);
    }
  }

  save(file: string, info: Record<string, unknown> = {}): void {
    writeTrainerState(file, {
      step: this.stepIndex,
      info: { ...info, kind: 'sft', dataPosition: this.order.position, seed: this.config.seed },
      weights: captureWeights(this.policy.variables),
      optimizer: this.optimizer.getState(),
    });
  }

  /** Restores weights, optimizer, step and data position; returns the saved `info`. */
  restore(file: string): Record<string, unknown> {
    const state = readTrainerState(file);
    if (state.info.kind !== 'sft') throw new UserError(`'${file}' is not an SFT trainer state (kind ${String(state.info.kind)})`);
    if (state.info.seed !== this.config.seed)
      throw new UserError(`'${file}' was written with seed ${String(state.info.seed)}, the config says seed ${this.config.seed}`);
    restoreWeights(this.policy.variables, state.weights, file);
    this.optimizer.setState(state.optimizer);
    this.stepIndex = state.step;
    this.order = new DataOrder(new Rng(this.config.seed).fork('sft-data'), this.corpus.size, state.info.dataPosition as DataPosition);
    return state.info;
  }
}

/** Masked mean NLL: −Σ mask·logp / max(1, Σ mask). All [B, T]. Also GRPO's reference SFT term (`referenceSft`). */
export function sftLoss(policy: TrainablePolicy, inputs: tf.Tensor2D, targets: tf.Tensor2D, mask: tf.Tensor2D): tf.Scalar {
  const logprobs = policy.tokenLogprobs(inputs, targets); // [B, T]
  const count = tf.maximum(tf.sum(mask), 1);
  return tf.neg(tf.div(tf.sum(tf.mul(logprobs, mask)), count)) as tf.Scalar;
}
