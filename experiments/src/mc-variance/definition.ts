import { UserError } from '@rred/core';
import type { ExperimentDefinition } from '../common/experiment';
import { datasetInputs } from '../common/identity';
import { checkpointHashOf, checkpointTags, engineBackend } from '../common/model';
import { loadSplit } from '../common/rollouts';
import { MC_SHARED_PREFILL_TAG } from '../common/mc-records';
import { computeMcVariance } from './compute';
import { MC_VARIANCE_ALIASES, mcVarianceConfigSchema, type McVarianceConfig } from './config';
import { renderMcVariancePlots, renderMcVarianceTables } from './render';

/** Prompt + rollout and prompt + MC horizon must fit the model context; checked before any run opens. */
export function checkMcFits(config: Pick<McVarianceConfig, 'split' | 'problems' | 'rollout' | 'mc'>, contextLength = 160): void {
  const longest = Math.max(...loadSplit(config.split, config.problems).map((r) => r.problem.length + 2));
  if (longest + config.rollout.maxNewTokens > contextLength) {
    throw new UserError(
      `rollout.maxNewTokens ${config.rollout.maxNewTokens}: the longest prompt of ${config.split} has ${longest} tokens; together they exceed the context of ${contextLength}`,
    );
  }
  if (config.mc.horizon === 'completion' && longest + config.mc.maxNewTokens > contextLength) {
    throw new UserError(
      `mc.maxNewTokens ${config.mc.maxNewTokens}: the longest prompt of ${config.split} has ${longest} tokens; together they exceed the context of ${contextLength}`,
    );
  }
}

export const mcVarianceExperiment: ExperimentDefinition<typeof mcVarianceConfigSchema> = {
  name: 'mc-variance',
  schema: mcVarianceConfigSchema,
  aliases: MC_VARIANCE_ALIASES,
  summary:
    'Paper Fig. 8 / Fig. 4 (Sec. 4, App. 10.1): SD of the MC value estimate vs samples per exit point, and the truncation loss; writes results/mc-variance/.',
  command: { project: 'experiments', target: 'mc-variance', main: 'experiments/src/mc-variance/main.ts' },
  precheck: (config) => {
    checkpointHashOf(config.checkpoint);
    checkMcFits(config);
  },
  backend: engineBackend,
  compute: computeMcVariance,
  inputs: (config) => ({ checkpointHash: checkpointHashOf(config.checkpoint), ...datasetInputs([config.split]) }),
  tags: (config) => ({ ...checkpointTags(config.checkpoint), [MC_SHARED_PREFILL_TAG]: 'true' }),
  render: { tables: renderMcVarianceTables, plots: renderMcVariancePlots },
  sweep: { reportMetrics: ['samples_for_sd_threshold', 'mean_segments', 'exit_points', 'cut_correct_fraction_50'] },
};
