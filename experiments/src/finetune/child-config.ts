/**
 * What one child runs: its resolved config (plan.ts makes it) and the GRPO trainer config that follows
 * from it. Its own file: the child's code identity (code-identity.ts) follows what child.ts imports, and
 * this is all of the plan it needs.
 */
import type { McConfig, RredcotConfig, SigmaConfig } from '@rred/estimators';
import { parseGrpoConfig, type GrpoConfig } from '@rred/training';
import type { FinetuneConfig, Method } from './config';

export interface ChildConfig {
  method: Method;
  seed: number;
  /** Test bed name (checkpointName of `checkpoint`). */
  testBed: string;
  checkpoint: string;
  /** Identity of the starting checkpoint (weights + model config + tokenizer): a retrained or edited checkpoint never reuses old children. */
  checkpointHash: string;
  /** finetuneCodeHash(): a change to the code the child runs never reuses old children. */
  codeHash: string;
  /** sha256 of the validation and eval split files the bed reads (dataHashOf): another problem set never reuses old children. */
  dataHash: string;
  steps: number;
  lr: number;
  /** λ of the reference SFT term (grpo-ref-sft; 0 for every other method). */
  referenceSft: number;
  grpo: FinetuneConfig['grpo'];
  optimizer: FinetuneConfig['optimizer'];
  data: FinetuneConfig['data'];
  segmentation: FinetuneConfig['segmentation'];
  /** The RREDCoT estimator config of the method (the rredcot-* arms and verigate; null otherwise). */
  estimator: RredcotConfig | null;
  /** σ of a credit method (CREDIT_METHODS; null otherwise). */
  sigma: SigmaConfig | null;
  /** Truncated-MC config of method mc (null otherwise). */
  mc: McConfig | null;
  validation: FinetuneConfig['validation'];
  evaluation: FinetuneConfig['evaluation'];
}

/** The trainer's redistribution flag of a method (a hook supplies σ unless 'none'). */
const REDISTRIBUTION: Record<Method, GrpoConfig['redistribution']> = {
  grpo: 'none',
  'grpo-ref-sft': 'none',
  'rredcot-oracle-aligned': 'rredcot',
  'sigma-shuffle': 'rredcot',
  'signed-position': 'position',
  verigate: 'none',
  'verigate-oracle': 'none',
  rredcot: 'rredcot',
  'rredcot-literal': 'rredcot',
  'rredcot-l1': 'rredcot',
  'rredcot-both': 'rredcot',
  'rredcot-both-l1': 'rredcot',
  'rredcot-own': 'rredcot',
  grail: 'grail',
  oracle: 'oracle',
  mc: 'mc',
};

/** The trainer's config for a child (validated by the training package's schema and cross-field checks). */
export function trainerConfig(c: ChildConfig): GrpoConfig {
  return parseGrpoConfig(
    {
      ...c.grpo,
      seed: c.seed,
      steps: c.steps,
      redistribution: REDISTRIBUTION[c.method],
      processAdvantage: c.method === 'verigate' || c.method === 'verigate-oracle' ? 'verigate' : 'none',
      checkpointEvery: 0,
      referenceSft: c.referenceSft,
      optimizer: { ...c.optimizer, lr: c.lr },
    },
    `finetune config (grpo settings of ${c.testBed}.${c.method}.seed${c.seed})`,
  );
}
