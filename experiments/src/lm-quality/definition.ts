import type { ExperimentDefinition } from '../common/experiment';
import { checkpointHashOf, engineBackend } from '../common/model';
import { computeLmQuality } from './compute';
import { LM_QUALITY_ALIASES, lmQualityConfigSchema } from './config';
import { renderLmQualityPlots, renderLmQualityTables } from './render';

/** `lm:evaluate`: named `lm` so its report lands in results/lm/. */
export const lmQualityExperiment: ExperimentDefinition<typeof lmQualityConfigSchema> = {
  name: 'lm',
  schema: lmQualityConfigSchema,
  aliases: LM_QUALITY_ALIASES,
  summary: 'Quality report of the embedded checkpoint (greedy and temperature-1 accuracy per split); writes results/lm/.',
  command: { project: 'lm', target: 'evaluate', main: 'experiments/src/lm-quality/main.ts' },
  precheck: (config) => {
    checkpointHashOf(config.checkpoint);
  },
  backend: engineBackend,
  compute: computeLmQuality,
  tags: (config) => ({ checkpointHash: checkpointHashOf(config.checkpoint) }),
  render: { tables: renderLmQualityTables, plots: renderLmQualityPlots },
};
