/**
 * The child runs of one finetune target: one per (test bed, method, seed), each with its own resolved
 * config (scale applied, the method's lr, estimator and σ, the starting weights' hash, the code's hash).
 * A child's config hash decides reuse: a FINISHED child with the same hash — same settings, same
 * starting weights, same code — is not trained again.
 */
import type { McConfig, RredcotConfig, SigmaConfig } from '@rred/estimators';
import { configHash } from '@rred/results-store';
import { parseGrpoConfig, type GrpoConfig } from '@rred/training';
import { finetuneCodeHash } from './code-identity';
import { checkpointName, CREDIT_METHODS, type CreditMethod, type FinetuneConfig, type Method } from './config';

export interface ChildConfig {
  method: Method;
  seed: number;
  /** Test bed name (checkpointName of `checkpoint`). */
  testBed: string;
  checkpoint: string;
  /** Identity of the starting checkpoint (weights + model config + tokenizer): a retrained or edited checkpoint never reuses old children. */
  checkpointHash: string;
  /** finetuneCodeHash(): a code change never reuses old children. */
  codeHash: string;
  steps: number;
  lr: number;
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

export interface ChildPlan {
  key: string;
  config: ChildConfig;
  configHash: string;
}

const scaled = (n: number, scale: number) => Math.max(1, Math.round(n * scale));

/** The test beds of a config: `checkpoint` with `methods` first, then `moreTestBeds`. */
export function testBeds(config: FinetuneConfig): { name: string; checkpoint: string; methods: Method[]; primary: boolean }[] {
  return [
    { checkpoint: config.checkpoint, methods: config.methods, primary: true },
    ...config.moreTestBeds.map((b) => ({ ...b, primary: false })),
  ].map((b) => ({ ...b, name: checkpointName(b.checkpoint) }));
}

/** The seeds a method runs: the first `seedsPerMethod[method]` of `seeds`, or all of them. */
export function seedsOf(config: FinetuneConfig, method: Method): number[] {
  const n = config.seedsPerMethod[method];
  return n === undefined ? config.seeds : config.seeds.slice(0, n);
}

function estimatorOf(config: FinetuneConfig, method: Method): RredcotConfig | null {
  switch (method) {
    case 'rredcot':
    case 'rredcot-literal':
    case 'rredcot-l1':
    case 'verigate':
      return config.rredcot;
    case 'rredcot-both':
    case 'rredcot-both-l1':
      return config.rredcotBoth;
    case 'rredcot-own':
      return config.rredcotOwn;
    default:
      return null;
  }
}

const isCreditMethod = (m: Method): m is CreditMethod => (CREDIT_METHODS as readonly Method[]).includes(m);

function sigmaOf(config: FinetuneConfig, method: Method): SigmaConfig | null {
  return isCreditMethod(method) ? config.sigma[method] : null;
}

/**
 * Every child, test bed by test bed, method by method, seed by seed. `checkpointHash` is the hash of
 * one checkpoint or a function from checkpoint path to hash; `codeHash` defaults to the working tree's.
 */
export function planChildren(
  config: FinetuneConfig,
  checkpointHash: string | ((checkpoint: string) => string),
  codeHash: string = finetuneCodeHash(),
): ChildPlan[] {
  const hashOf = typeof checkpointHash === 'string' ? () => checkpointHash : checkpointHash;
  const out: ChildPlan[] = [];
  for (const bed of testBeds(config)) {
    for (const method of bed.methods) {
      for (const seed of seedsOf(config, method)) {
        const child: ChildConfig = {
          method,
          seed,
          testBed: bed.name,
          checkpoint: bed.checkpoint,
          checkpointHash: hashOf(bed.checkpoint),
          codeHash,
          steps: scaled(config.steps, config.scale),
          lr: config.learningRates[method],
          grpo: config.grpo,
          optimizer: config.optimizer,
          data: config.data,
          segmentation: config.segmentation,
          estimator: estimatorOf(config, method),
          sigma: sigmaOf(config, method),
          mc: method === 'mc' ? config.mc : null,
          validation: {
            ...config.validation,
            every: scaled(config.validation.every, config.scale),
            problems: scaled(config.validation.problems, config.scale),
          },
          evaluation: { ...config.evaluation, problems: scaled(config.evaluation.problems, config.scale) },
        };
        trainerConfig(child); // every child's GRPO config passes the trainer's checks before anything runs
        out.push({ key: childKey(method, seed, bed.primary ? null : bed.name), config: child, configHash: configHash(child) });
      }
    }
  }
  return out;
}

/** `<method>.seed<k>` on the primary test bed (the key of every run before test beds existed), `<bed>.<method>.seed<k>` on the others. */
export function childKey(method: string, seed: number, testBed: string | null = null): string {
  return `${testBed === null ? '' : `${testBed}.`}${method}.seed${seed}`;
}

/** The trainer's redistribution flag of a method (a hook supplies σ unless 'none'). */
const REDISTRIBUTION: Record<Method, GrpoConfig['redistribution']> = {
  grpo: 'none',
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
      optimizer: { ...c.optimizer, lr: c.lr },
    },
    `finetune config (grpo settings of ${childKey(c.method, c.seed)})`,
  );
}
