import { UserError } from '@rred/core';
import type { ExperimentDefinition } from '../common/experiment';
import { CHECKPOINT_HASH_COVERS, checkpointHashOf, engineBackend } from '../common/model';
import { checkMcFits } from '../common/rollouts';
import { computeGold } from './compute';
import { GOLD_ALIASES, goldConfigSchema } from './config';
import { renderGoldPlots, renderGoldTables } from './render';

export const goldExperiment: ExperimentDefinition<typeof goldConfigSchema> = {
  name: 'gold',
  schema: goldConfigSchema,
  aliases: GOLD_ALIASES,
  summary:
    'Gold-value credit benchmark: gold values (MC with 256 samples per exit point) per checkpoint; every credit method (RREDCoT variants, LOO, gradient, MC(n), ' +
    'trivial baselines) scored against them, the split-half ceiling, the step oracle and each cost; writes results/gold/.',
  command: { project: 'experiments', target: 'gold', main: 'experiments/src/gold/main.ts' },
  precheck: (config) => {
    for (const c of config.checkpoints) {
      checkpointHashOf(c);
      checkMcFits({ checkpoint: c, split: config.split, problems: config.problems, rollout: config.rollout, mc: config.gold });
    }
  },
  backend: engineBackend,
  compute: computeGold,
  checkServed: (config) => {
    if (config.checkpoints.length !== 1) {
      throw new UserError(
        `--model: gold on a served model takes one checkpoint (its stem names the traces), got ${config.checkpoints.length}; pass --checkpoints '["<path>"]'`,
      );
    }
  },
  // one identity per checkpoint, comma-separated in config order (also tagged per checkpoint stem by the compute)
  tags: (config) => ({ checkpointHash: config.checkpoints.map(checkpointHashOf).join(','), checkpointHashCovers: CHECKPOINT_HASH_COVERS }),
  render: { tables: renderGoldTables, plots: renderGoldPlots },
};
