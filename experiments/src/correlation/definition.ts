import { UserError } from '@rred/core';
import type { ExperimentDefinition } from '../common/experiment';
import { datasetInputs } from '../common/identity';
import { checkpointHashOf, checkpointTags, engineBackend } from '../common/model';
import { bedSplit, checkSplitFits } from '../common/rollouts';
import { computeCorrelation } from './compute';
import { CORRELATION_ALIASES, correlationConfigSchema } from './config';
import { renderCorrelationPlots, renderCorrelationTables } from './render';
import { findSourceRun, NO_SOURCE_RUN, sourceRunFor } from './source';

export const correlationExperiment: ExperimentDefinition<typeof correlationConfigSchema> = {
  name: 'correlation',
  schema: correlationConfigSchema,
  aliases: CORRELATION_ALIASES,
  summary:
    'Paper Fig. 5 (Sec. 4, App. 10.2): correlation of RREDCoT, LOO and gradient credit with MC credit, and their costs; writes results/correlation/.',
  command: { project: 'experiments', target: 'correlation', main: 'experiments/src/correlation/main.ts' },
  precheck: (config) => {
    checkpointHashOf(config.checkpoint);
  },
  precheckStore: (config, store) => {
    // no source run to reuse: the traces are generated, so the split must fit the model
    if (sourceRunFor(store, config, checkpointHashOf(config.checkpoint)) === null) {
      const budget = { field: 'generate.rollout.maxNewTokens', tokens: config.generate.rollout.maxNewTokens };
      checkSplitFits(config.generate.split, config.generate.problems, config.checkpoint, [budget]);
    }
  },
  backend: engineBackend,
  compute: computeCorrelation,
  inputs: (config, store) => {
    const checkpointHash = checkpointHashOf(config.checkpoint);
    const source = findSourceRun(store, config, checkpointHash);
    const split = source ? String((store.getRun(source).config as { split?: unknown }).split) : config.generate.split;
    return { checkpointHash, sourceRun: source ?? NO_SOURCE_RUN, ...datasetInputs([bedSplit(split, config.checkpoint)]) };
  },
  checkServed: (config) => {
    if (config.baselines === 'compute') {
      throw new UserError(
        "--model: the gradient baseline needs the model's weights, which a served model does not expose; pass --baselines skip",
      );
    }
  },
  tags: (config) => checkpointTags(config.checkpoint),
  render: { tables: renderCorrelationTables, plots: renderCorrelationPlots },
  sweep: {
    reportMetrics: [
      'spearman.all.rredcot_mc',
      'pearson.all.rredcot_mc',
      'spearman.early.rredcot_mc',
      'spearman.middle.rredcot_mc',
      'spearman.late.rredcot_mc',
      'segments',
      'mean_references',
      'skipped_traces',
    ],
  },
};
