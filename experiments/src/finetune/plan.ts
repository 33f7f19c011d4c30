/**
 * The child runs of one finetune target: one per (method, seed), each with its own resolved config
 * (scale applied, the method's lr and estimator, the starting weights' hash). A child's config hash
 * decides reuse: a FINISHED child with the same hash is not trained again.
 */
import type { RredcotConfig } from '@rred/estimators';
import { configHash } from '@rred/results-store';
import { parseGrpoConfig, type GrpoConfig } from '@rred/training';
import type { FinetuneConfig, Method } from './config';

export interface ChildConfig {
  method: Method;
  seed: number;
  checkpoint: string;
  /** Identity of the starting checkpoint (weights + model config + tokenizer): a retrained or edited checkpoint never reuses old children. */
  checkpointHash: string;
  steps: number;
  lr: number;
  grpo: FinetuneConfig['grpo'];
  optimizer: FinetuneConfig['optimizer'];
  data: FinetuneConfig['data'];
  segmentation: FinetuneConfig['segmentation'];
  /** The RREDCoT estimator config of the method (null for grpo). */
  estimator: RredcotConfig | null;
  validation: FinetuneConfig['validation'];
  evaluation: FinetuneConfig['evaluation'];
}

export interface ChildPlan {
  key: string;
  config: ChildConfig;
  configHash: string;
}

const scaled = (n: number, scale: number) => Math.max(1, Math.round(n * scale));

export function planChildren(config: FinetuneConfig, checkpointHash: string): ChildPlan[] {
  const out: ChildPlan[] = [];
  for (const method of config.methods) {
    for (const seed of config.seeds) {
      const child: ChildConfig = {
        method,
        seed,
        checkpoint: config.checkpoint,
        checkpointHash,
        steps: scaled(config.steps, config.scale),
        lr: config.learningRates[method],
        grpo: config.grpo,
        optimizer: config.optimizer,
        data: config.data,
        segmentation: config.segmentation,
        estimator: method === 'grpo' ? null : method === 'rredcot' ? config.rredcot : config.rredcotOwn,
        validation: {
          ...config.validation,
          every: scaled(config.validation.every, config.scale),
          problems: scaled(config.validation.problems, config.scale),
        },
        evaluation: { ...config.evaluation, problems: scaled(config.evaluation.problems, config.scale) },
      };
      trainerConfig(child); // every child's GRPO config passes the trainer's checks before anything runs
      out.push({ key: childKey(method, seed), config: child, configHash: configHash(child) });
    }
  }
  return out;
}

export function childKey(method: string, seed: number): string {
  return `${method}.seed${seed}`;
}

/** The trainer's config for a child (validated by the training package's schema and cross-field checks). */
export function trainerConfig(c: ChildConfig): GrpoConfig {
  return parseGrpoConfig(
    {
      ...c.grpo,
      seed: c.seed,
      steps: c.steps,
      redistribution: c.method === 'grpo' ? 'none' : 'rredcot',
      checkpointEvery: 0,
      optimizer: { ...c.optimizer, lr: c.lr },
    },
    `finetune config (grpo settings of ${childKey(c.method, c.seed)})`,
  );
}
