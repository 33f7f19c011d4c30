/**
 * Every experiment's renderers, by experiment name. A renderer reads the store only (no model), so
 * `experiments:tables` / `experiments:plots` regenerate results/ in seconds, byte for byte. Adding an
 * experiment (e.g. finetune) = one entry here.
 */
import type { Store } from '@rred/results-store';
import { renderCorrelationPlots, renderCorrelationTables } from '../correlation/render';
import { renderFinetunePlots, renderFinetuneTables } from '../finetune/render';
import { renderLmQualityPlots, renderLmQualityTables } from '../lm-quality/render';
import { renderMcVariancePlots, renderMcVarianceTables } from '../mc-variance/render';

export interface Renderer {
  /** Tables (.md, .csv) of one run into outDir; returns the files written. */
  tables(store: Store, runId: string, outDir: string): Promise<string[]> | string[];
  /** Plots (.vl.json, .svg, .png) of one run into outDir. */
  plots(store: Store, runId: string, outDir: string): Promise<string[]>;
}

export const RENDERERS: Record<string, Renderer> = {
  'mc-variance': { tables: renderMcVarianceTables, plots: renderMcVariancePlots },
  correlation: { tables: renderCorrelationTables, plots: renderCorrelationPlots },
  finetune: { tables: renderFinetuneTables, plots: renderFinetunePlots },
  lm: { tables: renderLmQualityTables, plots: renderLmQualityPlots },
};

export async function renderExperiment(experiment: string, store: Store, runId: string, outDir: string, what: 'tables' | 'plots' | 'both' = 'both'): Promise<string[]> {
  const r = RENDERERS[experiment];
  if (!r) throw new Error(`no renderer registered for experiment '${experiment}'`);
  const files: string[] = [];
  if (what !== 'plots') files.push(...(await r.tables(store, runId, outDir)));
  if (what !== 'tables') files.push(...(await r.plots(store, runId, outDir)));
  return files;
}

/**
 * The run results/<experiment>/ shows: the newest FINISHED top-level run (sweep children are rendered
 * by sweep-report instead), or the one named in `pins`.
 */
export function runToRender(store: Store, experiment: string, pinned?: string): string | null {
  if (pinned) return store.resolveRunId(pinned);
  const runs = store.listRuns({ experiment, status: 'FINISHED' }).filter((r) => r.parentRunId === null);
  if (runs.length === 0) return null;
  runs.sort((a, b) => (b.endTime ?? 0) - (a.endTime ?? 0) || (a.id < b.id ? -1 : 1));
  return runs[0].id;
}
