/**
 * Rendering from the store: a renderer reads the store only (no model), so `experiments:tables` /
 * `experiments:plots` regenerate results/ in seconds, byte for byte. The renderers themselves belong
 * to the experiments (their `render` field; the list is ../registry.ts).
 */
import type { Store } from '@rred/results-store';
import { fromCommittedConfig } from '../common/out-dir';
import { experimentByName } from '../registry';

export async function renderExperiment(
  experiment: string,
  store: Store,
  runId: string,
  outDir: string,
  what: 'tables' | 'plots' | 'both' = 'both',
): Promise<string[]> {
  const r = experimentByName(experiment).render;
  const files: string[] = [];
  if (what !== 'plots') files.push(...(await r.tables(store, runId, outDir)));
  if (what !== 'tables') files.push(...(await r.plots(store, runId, outDir)));
  return files;
}

/**
 * The run results/<experiment>/ shows: the newest FINISHED top-level run (sweep children are rendered
 * by sweep-report instead) of a committed config (common/out-dir.ts), or the one named in `pins`.
 */
export function runToRender(store: Store, experiment: string, pinned?: string): string | null {
  if (pinned) return store.resolveRunId(pinned);
  const runs = store.listRuns({ experiment, status: 'FINISHED' }).filter((r) => r.parentRunId === null && fromCommittedConfig(r));
  if (runs.length === 0) return null;
  runs.sort((a, b) => (b.endTime ?? 0) - (a.endTime ?? 0) || (a.id < b.id ? -1 : 1));
  return runs[0].id;
}

/** Every run results/<experiment>/ shows: the experiment's own choice (the bench: one per section), else runToRender. */
export function runsToRender(store: Store, experiment: string, pinned?: string): string[] {
  const def = experimentByName(experiment);
  if (!pinned && def.runsToRender) return def.runsToRender(store);
  const id = runToRender(store, experiment, pinned);
  return id ? [id] : [];
}
