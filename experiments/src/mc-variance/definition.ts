import type { ExperimentDefinition } from '../common/experiment';
import { datasetInputs } from '../common/identity';
import { checkpointHashOf, checkpointTags, engineBackend } from '../common/model';
import { bedSplit, checkMcFits } from '../common/rollouts';
import { MC_SHARED_PREFILL_TAG } from '../common/mc-records';
import { computeMcVariance } from './compute';
import { mcVarianceConfigSchema } from '../common/mc-variance-config';
import { renderMcVariancePlots, renderMcVarianceTables } from './render';

const MC_VARIANCE_ALIASES = { n: 'problems', samples: 'mc.samplesPerExitPoint', K: 'segmentation.maxSegments' };

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
  inputs: (config) => ({
    checkpointHash: checkpointHashOf(config.checkpoint),
    ...datasetInputs([bedSplit(config.split, config.checkpoint)]),
  }),
  tags: (config) => ({ ...checkpointTags(config.checkpoint), [MC_SHARED_PREFILL_TAG]: 'true' }),
  render: { tables: renderMcVarianceTables, plots: renderMcVariancePlots },
  sweep: { reportMetrics: ['samples_for_sd_threshold', 'mean_segments', 'exit_points', 'cut_correct_fraction_50'] },
};
