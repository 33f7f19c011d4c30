/** The traces the correlation experiment scores: reused from an mc-variance run, or generated here. */
import { canonicalJson, UserError } from '@rred/core';
import type { ContinuationRecord } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { CostRecord, Store, StoredTrace } from '@rred/results-store';
import type { Segment } from '@rred/segmentation';
import { continuationRecords } from '../common/mc-records';
import { mcVarianceConfigSchema, type McVarianceConfig } from '../common/mc-variance-config';
import { fromCommittedConfig } from '../common/out-dir';
import { committedRunIds } from '../report/run-export';
import type { CorrelationConfig } from './config';

/** The `sourceRun` tag of a correlation run that generated its own traces. */
export const NO_SOURCE_RUN = 'none (generated)';

/** The mc-variance run to reuse, or null when there is none for this checkpoint. */
export function findSourceRun(store: Store, config: CorrelationConfig, checkpointHash: string): string | null {
  if (config.source.mcRun !== 'latest') {
    const run = store.getRun(config.source.mcRun);
    if (run.experiment !== 'mc-variance' || run.status !== 'FINISHED') {
      throw new UserError(
        `source.mcRun ${config.source.mcRun}: run ${run.id} is a ${run.status} ${run.experiment} run; expected a FINISHED mc-variance run`,
      );
    }
    if (run.tags.checkpointHash !== checkpointHash) {
      throw new UserError(
        `source.mcRun ${run.id}: its traces come from checkpoint ${run.tags.checkpointHash?.slice(0, 12) ?? 'unknown'}, not ${checkpointHash.slice(0, 12)} (${config.checkpoint})` +
          (run.tags.checkpointHashCovers
            ? ''
            : '; that run recorded the weights hash alone, which cannot tell models apart: run mc-variance again'),
      );
    }
    return run.id;
  }
  // 'latest': the committed run (results/runs/mc-variance.json) when the store holds it, else the newest run
  // of a committed config; never a run made with another config (`--n 30 --seed 2`, an untracked file)
  const runs = store.listRuns({ experiment: 'mc-variance', status: 'FINISHED' }).filter((r) => r.tags.checkpointHash === checkpointHash);
  runs.sort((a, b) => (b.endTime ?? 0) - (a.endTime ?? 0) || (a.id < b.id ? -1 : 1));
  const committed = runs.filter(fromCommittedConfig);
  const shipped = committedRunIds('mc-variance');
  const chosen = committed.find((r) => shipped.includes(r.id)) ?? committed[0];
  if (chosen) return chosen.id;
  if (runs.length === 0) return null;
  const listed = runs.slice(0, 5).map((r) => `${r.id} (problems ${r.params.problems ?? '?'}, seed ${r.seed ?? '?'})`);
  throw new UserError(
    `source.mcRun 'latest': no FINISHED mc-variance run of a committed config for checkpoint ${checkpointHash.slice(0, 12)}; ` +
      `candidates of other configs: ${listed.join(', ')}${runs.length > 5 ? ', ...' : ''}; name one with --mcRun ID, or run \`npx nx run experiments:mc-variance\``,
  );
}

/**
 * The source run this config resolves to in `store` (null: none, and `onMissing` allows generating
 * traces). `store` null: the store file does not exist yet. Called before anything is written (the
 * experiment's precheckStore) and again by the compute: a named run that is missing, not hexadecimal
 * or of the wrong kind, or no run with `onMissing: 'error'`, is a one-line UserError.
 */
export function sourceRunFor(store: Store | null, config: CorrelationConfig, checkpointHash: string): string | null {
  let id: string | null = null;
  if (store) {
    try {
      id = findSourceRun(store, config, checkpointHash);
    } catch (err) {
      if (err instanceof UserError && !err.message.startsWith('source.mcRun')) throw new UserError(`source.mcRun: ${err.message}`);
      throw err;
    }
  } else if (config.source.mcRun !== 'latest') {
    throw new UserError(`source.mcRun ${config.source.mcRun}: there is no results store yet, so no such run`);
  }
  if (id === null && config.source.onMissing === 'error') {
    throw new UserError(
      `correlation: no FINISHED mc-variance run for checkpoint ${checkpointHash.slice(0, 12)} (source.mcRun '${config.source.mcRun}', source.onMissing 'error'); ` +
        'run `npx nx run experiments:mc-variance` first',
    );
  }
  return id;
}

export interface SourceItem {
  trace: Trace;
  segments: Segment[];
  /** MC records of the source run (null when the source's MC config differs from ours). */
  mcRecords: ContinuationRecord[] | null;
  mcCost: CostRecord | null;
}

interface SourceData {
  runId: string;
  config: McVarianceConfig;
  /** The source's segmentation equals ours: its segments are used as they are. */
  sameSegmentation: boolean;
  sameMc: boolean;
  items: SourceItem[];
}

function storedToTrace(s: StoredTrace): Trace {
  if (!s.trace.logprobs || !s.trace.entropies)
    throw new UserError(`stored trace '${s.key}' has no logprobs/entropies; segmentation needs them`);
  return { ...s.trace, logprobs: s.trace.logprobs, entropies: s.trace.entropies };
}

export function loadSource(store: Store, runId: string, config: CorrelationConfig): SourceData {
  const src = mcVarianceConfigSchema.parse(store.getRun(runId).config);
  const sameSegmentation = canonicalJson(src.segmentation) === canonicalJson(config.segmentation);
  const sameMc =
    canonicalJson({ ...src.mc, progress: false, batchSize: 0 }) === canonicalJson({ ...config.mc, progress: false, batchSize: 0 });
  const items = store.traces(runId).map((s) => ({
    trace: storedToTrace(s),
    segments: s.segments,
    mcRecords: sameMc ? continuationRecords(s.continuations) : null,
    mcCost: s.costs.find((c) => c.method === 'mc') ?? null,
  }));
  return { runId, config: src, sameSegmentation, sameMc, items };
}
