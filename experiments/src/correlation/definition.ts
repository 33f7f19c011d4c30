import type { ExperimentDefinition } from '../common/experiment';
import { checkpointHashOf, engineBackend } from '../common/model';
import { computeCorrelation } from './compute';
import { CORRELATION_ALIASES, correlationConfigSchema } from './config';

export const correlationExperiment: ExperimentDefinition<typeof correlationConfigSchema> = {
  name: 'correlation',
  schema: correlationConfigSchema,
  aliases: CORRELATION_ALIASES,
  precheck: (config) => {
    checkpointHashOf(config.checkpoint);
  },
  backend: engineBackend,
  compute: computeCorrelation,
  tags: (config) => ({ checkpointHash: checkpointHashOf(config.checkpoint) }),
};
