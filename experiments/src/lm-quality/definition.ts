import type { Store } from '@rred/results-store';
import type { ExperimentDefinition } from '../common/experiment';
import { checkpointHashOf, checkpointTags, engineBackend } from '../common/model';
import { fromCommittedConfig } from '../common/out-dir';
import { checkSplitFits } from '../common/rollouts';
import { EVAL_SPLITS } from '@rred/tasks';
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
    // every split the report reads, in the checkpoint's alphabet, each prompt shorter than its context (the
    // sampler stops a completion at the context, so maxNewTokens is a limit, not a budget that must fit)
    for (const split of [...EVAL_SPLITS, ...(config.compositeSplit ? [config.compositeSplit] : [])])
      checkSplitFits(split, config.problemsPerSplit, config.checkpoint, []);
  },
  backend: engineBackend,
  compute: computeLmQuality,
  tags: (config) => checkpointTags(config.checkpoint),
  render: { tables: renderLmQualityTables, plots: renderLmQualityPlots },
  runsToRender: newestRunPerCheckpoint,
};

/** One report per checkpoint (results/lm/<checkpoint stem>.*): the newest FINISHED top-level run of each, by checkpoint path. */
function newestRunPerCheckpoint(store: Store): string[] {
  const runs = store.listRuns({ experiment: 'lm', status: 'FINISHED' }).filter((r) => r.parentRunId === null && fromCommittedConfig(r));
  runs.sort((a, b) => (b.endTime ?? 0) - (a.endTime ?? 0) || (a.id < b.id ? -1 : 1));
  const newest = new Map<string, string>();
  for (const r of runs) {
    const checkpoint = String((store.getRun(r.id).config as { checkpoint?: unknown }).checkpoint);
    if (!newest.has(checkpoint)) newest.set(checkpoint, r.id);
  }
  return [...newest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, id]) => id);
}
