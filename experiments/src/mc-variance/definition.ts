import type { ExperimentDefinition } from '../common/experiment';
import { datasetInputs } from '../common/identity';
import { checkpointHashOf, checkpointTags, engineBackend } from '../common/model';
import { checkSplitFits } from '../common/rollouts';
import { MC_SHARED_PREFILL_TAG } from '../common/mc-records';
import { computeMcVariance } from './compute';
import { MC_VARIANCE_ALIASES, mcVarianceConfigSchema, type McVarianceConfig } from './config';
import { renderMcVariancePlots, renderMcVarianceTables } from './render';

/**
 * Before any run opens: the problems are in the checkpoint's alphabet, and each prompt + rollout, and
 * prompt + MC horizon when it bounds the whole completion, fits the checkpoint's context.
 */
export function checkMcFits(config: Pick<McVarianceConfig, 'checkpoint' | 'split' | 'problems' | 'rollout' | 'mc'>): void {
  const budgets = [{ field: 'rollout.maxNewTokens', tokens: config.rollout.maxNewTokens }];
  if (config.mc.horizon === 'completion') budgets.push({ field: 'mc.maxNewTokens', tokens: config.mc.maxNewTokens });
  checkSplitFits(config.split, config.problems, config.checkpoint, budgets);
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
  checkServed: () => undefined, // rollouts and MC need sampling only
  takesDataset: true,
  inputs: (config) => ({ checkpointHash: checkpointHashOf(config.checkpoint), ...datasetInputs([config.split]) }),
  tags: (config) => ({ ...checkpointTags(config.checkpoint), [MC_SHARED_PREFILL_TAG]: 'true' }),
  render: { tables: renderMcVarianceTables, plots: renderMcVariancePlots },
  sweep: { reportMetrics: ['samples_for_sd_threshold', 'mean_segments', 'exit_points', 'cut_correct_fraction_50'] },
};
