import * as fs from 'fs';
import type { MetricPoint, RunDetail, RunSummary, Store } from '@rred/results-store';
import type { ResultFile } from './results-files';

/** data/runs.json: every run of the stores (params, last metrics, tags), what the runs page filters. */
export interface RunsIndex {
  /** Where the runs come from (the store file, and/or the committed runs). */
  store: string;
  builtAt: string;
  runs: RunSummary[];
}

/** data/runs/<id>.json: one run in full, with its metric histories, its children's ids and the committed files that name it. */
export interface RunDocument {
  run: RunDetail;
  /** Metric key → points by step (wall time dropped: the pages plot by step). */
  history: Record<string, Pick<MetricPoint, 'step' | 'value'>[]>;
  children: string[];
  /** Committed result files (paths under results/) whose text names this run (`run <id>` or `sweep <id>`: provenance, plot subtitles). */
  files: string[];
}

/** Run id → the committed result files (tables, CSVs, plot specs) that name it. */
function filesNaming(results: readonly ResultFile[]): Map<string, string[]> {
  const byRun = new Map<string, string[]>();
  for (const f of results) {
    for (const id of new Set([...fs.readFileSync(f.file, 'utf8').matchAll(/\b(?:run|sweep) ([0-9a-f]{12})\b/g)].map((m) => m[1]))) {
      byRun.set(id, [...(byRun.get(id) ?? []), f.rel]);
    }
  }
  return byRun;
}

/**
 * Reads everything the pages show through the stores' public queries (nothing is written). A run held by
 * several stores is shown from the first (the session store before the committed runs).
 */
export function collectSiteData(
  stores: readonly { store: Store; label: string }[],
  builtAt: Date,
  results: readonly ResultFile[] = [],
): { index: RunsIndex; documents: RunDocument[] } {
  const seen = new Set<string>();
  const owned: { store: Store; run: RunSummary }[] = [];
  for (const { store } of stores)
    for (const run of store.listRuns()) {
      if (seen.has(run.id)) continue;
      seen.add(run.id);
      owned.push({ store, run });
    }
  const runs = owned.map((o) => o.run);
  const children = new Map<string, string[]>();
  for (const r of runs) {
    if (r.parentRunId === null) continue;
    children.set(r.parentRunId, [...(children.get(r.parentRunId) ?? []), r.id]);
  }
  const files = filesNaming(results);
  const documents = owned.map(({ store, run: r }): RunDocument => ({
    run: store.getRun(r.id),
    history: Object.fromEntries(
      store.metricKeys(r.id).map((k) => [k, store.metricHistory(r.id, k).map((p) => ({ step: p.step, value: p.value }))]),
    ),
    children: children.get(r.id) ?? [],
    files: files.get(r.id) ?? [],
  }));
  return { index: { store: stores.map((s) => s.label).join(' + '), builtAt: builtAt.toISOString(), runs }, documents };
}
