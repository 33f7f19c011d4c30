/** One child of the comparison: train an arm with a seed from the checkpoint, then evaluate it held out; or evaluate the start. */
import * as path from 'path';
import { ProgressBar, repoRoot, Rng } from '@rred/core';
import { TransformerLM } from '@rred/lm';
import { estimatorRedistribution } from '@rred/recipes';
import type { Run } from '@rred/results-store';
import { referencesById, type TaskRecord } from '@rred/tasks';
import { MultiAttemptTrainer, parseMultiAttemptConfig, transformerPolicy, type MultiAttemptArm } from '@rred/training';
import { specialTokens } from '../common/rollouts';
import type { MultiAttemptExperimentConfig } from './config';
import { evaluateHeldOut, taskPrompts, taskVerifier } from './evaluate';

/** What a child run records as its config: everything that decides its result. */
export interface ChildConfig {
  kind: 'train' | 'start';
  /** null for the start evaluation. */
  arm: MultiAttemptArm | null;
  seed: number;
  checkpointHash: string;
  train: MultiAttemptExperimentConfig['train'];
  data: MultiAttemptExperimentConfig['data'];
  evaluation: MultiAttemptExperimentConfig['evaluation'];
  /** Only for 'cal-rredcot' (null otherwise, so the other arms' hashes do not depend on them). */
  segmentation: MultiAttemptExperimentConfig['segmentation'] | null;
  rredcot: MultiAttemptExperimentConfig['rredcot'] | null;
}

export interface ChildInputs {
  checkpoint: string;
  train: readonly TaskRecord[];
  heldOut: readonly TaskRecord[];
}

export async function runChild(run: Run, config: ChildConfig, inputs: ChildInputs, label: string): Promise<void> {
  const lm = TransformerLM.fromCheckpoint(path.resolve(repoRoot(), inputs.checkpoint));
  try {
    if (config.kind === 'train') {
      const arm = config.arm!;
      const tok = lm.tokenizer;
      const redistribute =
        arm === 'cal-rredcot'
          ? estimatorRedistribution({
              model: lm,
              method: 'rredcot',
              segmentation: config.segmentation!,
              tokenText: (id) => tok.tokenText(id),
              estimatorConfig: config.rredcot,
              tokens: specialTokens(tok),
              datasetReferences: referencesById(inputs.train, tok),
              samplerCache: false,
            })
          : undefined;
      const trainer = new MultiAttemptTrainer(
        {
          policy: transformerPolicy(lm.transformer),
          sampler: lm,
          prompts: taskPrompts(lm, inputs.train),
          ...taskVerifier(lm),
          ...(redistribute ? { redistribute } : {}),
        },
        parseMultiAttemptConfig({ ...config.train, seed: config.seed, arm }, `child ${label}`),
      );
      const bar = new ProgressBar(`${label} train`, config.train.steps);
      for (let i = 0; i < config.train.steps; i++) {
        const m = trainer.trainStep();
        const { step, ...metrics } = await m;
        run.logMetrics(Object.fromEntries(Object.entries(metrics).map(([k, v]) => [`train.${k}`, v])), step);
        bar.tick(1, `V@K ${metrics.verificationAtK.toFixed(2)} pass@1 ${metrics.passAt1.toFixed(2)}`);
      }
    }
    const e = config.evaluation;
    const bar = new ProgressBar(`${label} held-out`, e.problems * e.samplesPerProblem);
    const held = await evaluateHeldOut(
      lm,
      inputs.heldOut,
      { ...config.train, samplesPerProblem: e.samplesPerProblem },
      new Rng(config.seed).fork('held-out'),
      (n) => bar.tick(n),
    );
    run.logMetrics({
      'heldOut.verificationAtK': held.verificationAtK,
      'heldOut.passAt1': held.passAt1,
      'heldOut.attemptsUsed': held.attemptsUsed,
      'heldOut.fixRate': held.fixRate,
      'heldOut.rollouts': held.rollouts,
    });
  } finally {
    lm.transformer.dispose();
  }
}
