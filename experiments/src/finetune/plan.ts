/**
 * The child runs of one finetune target: one per (test bed, method, seed), each with its own resolved
 * config (scale applied, the method's lr, estimator and σ, the starting weights' hash, the code's hash).
 * A child's config hash decides reuse: a FINISHED child with the same hash — same settings, same
 * starting weights, same code — is not trained again.
 */
import type { RredcotConfig, SigmaConfig } from '@rred/estimators';
import { createHash } from 'crypto';
import { canonicalJson } from '@rred/core';
import { configHash } from '@rred/results-store';
import { datasetInputs } from '../common/identity';
import { bedSplit } from '../common/rollouts';
import { finetuneCodeHash } from './code-identity';
import { trainerConfig, type ChildConfig } from './child-config';
import { checkpointName, CREDIT_METHODS, type CreditMethod, type FinetuneConfig, type Method } from './config';

export interface ChildPlan {
  key: string;
  config: ChildConfig;
  configHash: string;
}

const scaled = (n: number, scale: number) => Math.max(1, Math.round(n * scale));

/** What every child of a config reads and how much: steps, validation and evaluation after `scale`. */
export function childSizes(config: FinetuneConfig): Pick<ChildConfig, 'steps' | 'validation' | 'evaluation'> {
  return {
    steps: scaled(config.steps, config.scale),
    validation: {
      ...config.validation,
      every: scaled(config.validation.every, config.scale),
      problems: scaled(config.validation.problems, config.scale),
    },
    evaluation: { ...config.evaluation, problems: scaled(config.evaluation.problems, config.scale) },
  };
}

const dataHashes = new Map<string, string>();

/** sha256 over the sha256 of each split file a bed's children read (validation and the eval splits, bedSplit names), in order. */
export function dataHashOf(checkpoint: string, splits: readonly string[]): string {
  const files = ['validation', ...splits].map((s) => bedSplit(s, checkpoint));
  const key = files.join('\0');
  let out = dataHashes.get(key);
  if (out === undefined) {
    out = createHash('sha256')
      .update(canonicalJson(datasetInputs(files)))
      .digest('hex');
    dataHashes.set(key, out);
  }
  return out;
}

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
    case 'sigma-shuffle':
    case 'rredcot-literal':
    case 'rredcot-l1':
    case 'verigate':
      return config.rredcot;
    case 'rredcot-oracle-aligned':
      return config.rredcotOracle;
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

/** The lr and reference-SFT λ a method trains with on one bed. */
export interface Setting {
  lr: number;
  referenceSft: number;
}

/** Chosen settings by test bed name and method (the search's outcome; empty before it ran). */
export type Choices = Record<string, Partial<Record<Method, Setting>>>;

/**
 * The lr a method trains with on a bed: its chosen lr when the search tunes it there, the chosen lr of the
 * method it follows (`search.follow`) when that one is tuned there, else `learningRates[method]`;
 * null while the choice it needs is not made.
 */
function lrOf(config: FinetuneConfig, bed: { name: string; methods: readonly Method[] }, method: Method, choices: Choices): number | null {
  const tuned = (m: Method) => config.search.methods.includes(m) && bed.methods.includes(m);
  if (tuned(method)) return choices[bed.name]?.[method]?.lr ?? null;
  const followed = config.search.follow[method];
  if (followed !== undefined && tuned(followed)) return choices[bed.name]?.[followed]?.lr ?? null;
  return config.learningRates[method];
}

/** A method's setting on a bed (null while a choice it needs is not made); λ only for grpo-ref-sft. */
function settingOf(
  config: FinetuneConfig,
  bed: { name: string; methods: readonly Method[] },
  method: Method,
  choices: Choices,
): Setting | null {
  const lr = lrOf(config, bed, method, choices);
  if (lr === null) return null;
  if (method !== 'grpo-ref-sft') return { lr, referenceSft: 0 };
  if (config.search.referenceSft.length === 0) return { lr, referenceSft: config.referenceSft };
  const chosen = choices[bed.name]?.[method]?.referenceSft;
  return chosen === undefined ? null : { lr, referenceSft: chosen };
}

/** One child's config; `trainerConfig` checks it. */
function childConfig(
  config: FinetuneConfig,
  bed: { name: string; checkpoint: string },
  method: Method,
  seed: number,
  setting: Setting,
  checkpointHash: string,
  codeHash: string,
): ChildConfig {
  const child: ChildConfig = {
    method,
    seed,
    testBed: bed.name,
    checkpoint: bed.checkpoint,
    checkpointHash,
    codeHash,
    dataHash: dataHashOf(bed.checkpoint, config.evaluation.splits),
    steps: scaled(config.steps, config.scale),
    lr: setting.lr,
    referenceSft: setting.referenceSft,
    grpo: config.grpo,
    optimizer: config.optimizer,
    data: config.data,
    segmentation: config.segmentation,
    estimator: estimatorOf(config, method),
    sigma: sigmaOf(config, method),
    mc: method === 'mc' ? config.mc : null,
    validation: childSizes(config).validation,
    evaluation: childSizes(config).evaluation,
  };
  trainerConfig(child); // every child's GRPO config passes the trainer's checks before anything runs
  return child;
}

const hashFn = (checkpointHash: string | ((checkpoint: string) => string)) =>
  typeof checkpointHash === 'string' ? () => checkpointHash : checkpointHash;

/**
 * Every child of the comparison, test bed by test bed, method by method, seed by seed, each at its
 * setting (`settingOf`; throws when a search choice it needs is missing). `checkpointHash` is the hash of
 * one checkpoint or a function from checkpoint path to hash; `codeHash` defaults to the child code's.
 */
export function planChildren(
  config: FinetuneConfig,
  checkpointHash: string | ((checkpoint: string) => string),
  codeHash: string = finetuneCodeHash(),
  choices: Choices = {},
): ChildPlan[] {
  const hashOf = hashFn(checkpointHash);
  const out: ChildPlan[] = [];
  for (const bed of testBeds(config)) {
    for (const method of bed.methods) {
      const setting = settingOf(config, bed, method, choices);
      if (!setting) throw new Error(`finetune plan: ${bed.name}.${method} needs a search choice that is not made yet`);
      for (const seed of seedsOf(config, method)) {
        const child = childConfig(config, bed, method, seed, setting, hashOf(bed.checkpoint), codeHash);
        out.push({ key: childKey(method, seed, bed.primary ? null : bed.name), config: child, configHash: configHash(child) });
      }
    }
  }
  return out;
}

/** One candidate of a search: a (bed, method) at one setting, over the search's seeds. */
export interface SearchCandidate {
  testBed: string;
  method: Method;
  /** What the search varies: 'lr' or 'referenceSft'. */
  varies: 'lr' | 'referenceSft';
  setting: Setting;
  plans: ChildPlan[];
}

/** `lr3e-5` or `sft0.1`: the candidate's part of its children's keys. */
const candidateLabel = (c: Pick<SearchCandidate, 'varies' | 'setting'>) =>
  c.varies === 'lr' ? `lr${c.setting.lr.toExponential()}` : `sft${c.setting.referenceSft}`;

/**
 * The search candidates that can be planned with `choices`: every lr of `search.learningRates` for the
 * searched methods; every λ of `search.referenceSft` for grpo-ref-sft once its lr is known. Children of a
 * candidate are keyed `<bed>.<method>.<lr…|sft…>.seed<k>`; one at the value finally chosen has the same
 * config hash as the comparison's child of that seed (the comparison reuses it).
 */
export function planSearch(
  config: FinetuneConfig,
  checkpointHash: string | ((checkpoint: string) => string),
  codeHash: string = finetuneCodeHash(),
  choices: Choices = {},
): SearchCandidate[] {
  const hashOf = hashFn(checkpointHash);
  const seeds = config.seeds.slice(0, config.search.seeds);
  const out: SearchCandidate[] = [];
  for (const bed of testBeds(config)) {
    const candidates: Omit<SearchCandidate, 'plans'>[] = [];
    for (const method of bed.methods) {
      if (config.search.methods.includes(method))
        for (const lr of config.search.learningRates)
          candidates.push({
            testBed: bed.name,
            method,
            varies: 'lr',
            setting: { lr, referenceSft: method === 'grpo-ref-sft' ? config.referenceSft : 0 },
          });
      if (method === 'grpo-ref-sft' && config.search.referenceSft.length > 0) {
        const lr = lrOf(config, bed, method, choices);
        if (lr !== null)
          for (const referenceSft of config.search.referenceSft)
            candidates.push({ testBed: bed.name, method, varies: 'referenceSft', setting: { lr, referenceSft } });
      }
    }
    for (const c of candidates) {
      const plans = seeds.map((seed) => {
        const child = childConfig(config, bed, c.method, seed, c.setting, hashOf(bed.checkpoint), codeHash);
        const key = `${bed.primary ? '' : `${bed.name}.`}${c.method}.${candidateLabel(c)}.seed${seed}`;
        return { key, config: child, configHash: configHash(child) };
      });
      out.push({ ...c, plans });
    }
  }
  return out;
}

/** `<method>.seed<k>` on the primary test bed (the key of every run before test beds existed), `<bed>.<method>.seed<k>` on the others. */
export function childKey(method: string, seed: number, testBed: string | null = null): string {
  return `${testBed === null ? '' : `${testBed}.`}${method}.seed${seed}`;
}
