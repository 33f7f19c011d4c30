/** `experiments:multi-attempt` as an experiment: the arms of "Several attempts" over seeds, children resumable, rendered from the store. */
import { UserError } from '@rred/core';
import type { ExperimentDefinition } from '../common/experiment';
import { datasetInputs } from '../common/identity';
import { CHECKPOINT_HASH_COVERS, checkpointHashOf, engineBackend } from '../common/model';
import { loadSplit } from '../common/rollouts';
import { computeMultiAttempt, MULTI_ATTEMPT_EXPERIMENT, trainRecords } from './compute';
import { MULTI_ATTEMPT_ALIASES, multiAttemptExperimentSchema, type MultiAttemptExperimentConfig } from './config';
import { renderMultiAttemptTables } from './render';

function precheck(config: MultiAttemptExperimentConfig): void {
  loadSplit(config.evaluation.split, config.evaluation.problems);
  if (trainRecords(config).length === 0)
    throw new UserError(`data: no train problem has ≤ ${config.data.maxSteps} steps among the first ${config.data.trainProblems}`);
  if (new Set(config.seeds).size !== config.seeds.length) throw new UserError(`seeds: got a seed twice in [${config.seeds.join(', ')}]`);
}

export const multiAttemptExperiment: ExperimentDefinition<typeof multiAttemptExperimentSchema> = {
  name: MULTI_ATTEMPT_EXPERIMENT,
  schema: multiAttemptExperimentSchema,
  aliases: MULTI_ATTEMPT_ALIASES,
  summary:
    'Several attempts with verifier feedback: grpo vs naive-attempt vs cal (CAL-GRPO as read from its abstract) vs cal-rredcot over seeds, held-out Verification@K with Holm-corrected paired intervals; writes results/multi-attempt/.',
  command: { project: 'experiments', target: 'multi-attempt', main: 'experiments/src/multi-attempt/main.ts' },
  precheck,
  backend: engineBackend,
  compute: async ({ store, run, config, backend }) => {
    await computeMultiAttempt({ store, run, config, checkpointHash: checkpointHashOf(config.checkpoint), backend });
  },
  inputs: (config) => ({ checkpointHash: checkpointHashOf(config.checkpoint), ...datasetInputs([config.evaluation.split]) }),
  tags: (config) => ({ checkpointHash: checkpointHashOf(config.checkpoint), checkpointHashCovers: CHECKPOINT_HASH_COVERS }),
  render: { tables: renderMultiAttemptTables, plots: async () => [] },
};
