/**
 * `experiments:finetune` as an experiment: validate the config (nothing is opened or written for a
 * bad one), train or reuse every (method, seed) child inside the run, render results/finetune/ from
 * the store. A sweep grid may name it (e.g. experiments/sweeps/finetune-lr.json): each grid point is a
 * finetune run whose children are reused across points when their config hash matches.
 */
import { UserError } from '@rred/core';
import type { BackendInfo } from '@rred/results-store';
import type { ExperimentDefinition } from '../common/experiment';
import { datasetInputs } from '../common/identity';
import { CHECKPOINT_HASH_COVERS, checkpointHashOf, engineBackend } from '../common/model';
import { bedSplit, loadSplit } from '../common/rollouts';
import type { ChildData } from './child';
import { FINETUNE_EXPERIMENT, type ChildTrainer } from './children';
import { computeFinetune } from './compute';
import { FINETUNE_ALIASES, finetuneConfigIssues, finetuneConfigSchema, METHODS, type FinetuneConfig } from './config';
import { summaryKey } from './keys';
import { childSizes, planChildren, planSearch, testBeds } from './plan';
import { renderFinetunePlots, renderFinetuneTables } from './render';

/** What tests replace: the trainer or the data (a tiny model), the backend, the checkpoint hash (no file read). */
export interface FinetuneDeps {
  train?: ChildTrainer;
  data?: ChildData;
  backend?: BackendInfo;
  checkpointHash?: string;
}

/** Everything that can be checked without opening the store; throws UserError. */
function precheckFinetune(config: FinetuneConfig, checkpointHash: (checkpoint: string) => string): void {
  const issues = finetuneConfigIssues(config);
  if (issues.length) throw new UserError(`invalid finetune config: ${issues.join('; ')}`);
  const sizes = childSizes(config);
  for (const bed of testBeds(config)) {
    loadSplit(bedSplit('validation', bed.checkpoint), sizes.validation.problems);
    for (const split of sizes.evaluation.splits) loadSplit(bedSplit(split, bed.checkpoint), sizes.evaluation.problems);
  }
  planSearch(config, checkpointHash); // every search child's trainer config passes its checks
  if (config.search.methods.length === 0 && config.search.referenceSft.length === 0) planChildren(config, checkpointHash);
}

export function finetuneExperimentWith(deps: FinetuneDeps = {}): ExperimentDefinition<typeof finetuneConfigSchema> {
  const hashOf = (checkpoint: string) => deps.checkpointHash ?? checkpointHashOf(checkpoint);
  return {
    name: FINETUNE_EXPERIMENT,
    schema: finetuneConfigSchema,
    aliases: FINETUNE_ALIASES,
    summary:
      'Paper Tab. 1/2 (Sec. 4, App. 10.3) and neighbouring methods: GRPO vs RREDCoT-GRPO (aligned / literal σ), RREDCoT-own, GRAIL, VeriGate, oracle and MC credit over seeds and test beds; writes results/finetune/.',
    command: { project: 'experiments', target: 'finetune', main: 'experiments/src/finetune/main.ts' },
    precheck: (config) => precheckFinetune(config, hashOf),
    backend: deps.backend ? async () => deps.backend as BackendInfo : engineBackend,
    compute: async ({ store, run, config, backend }) => {
      await computeFinetune({ store, run, config, checkpointHash: hashOf, backend, train: deps.train, data: deps.data });
    },
    inputs: (config) => ({
      checkpointHash: hashOf(config.checkpoint),
      ...Object.fromEntries(
        testBeds(config)
          .filter((b) => !b.primary)
          .map((b) => [`checkpointHash.${b.name}`, hashOf(b.checkpoint)]),
      ),
      ...datasetInputs(testBeds(config).flatMap((b) => ['validation', ...config.evaluation.splits].map((s) => bedSplit(s, b.checkpoint)))),
    }),
    tags: (config) => ({ checkpointHash: hashOf(config.checkpoint), checkpointHashCovers: CHECKPOINT_HASH_COVERS }),
    render: { tables: renderFinetuneTables, plots: renderFinetunePlots },
    sweep: { reportMetrics: (['final', 'best'] as const).flatMap((which) => METHODS.map((m) => summaryKey(which, m))) },
  };
}

export const finetuneExperiment = finetuneExperimentWith();
