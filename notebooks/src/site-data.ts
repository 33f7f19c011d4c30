import type { MetricPoint, RunDetail, RunSummary, Store } from '@rred/results-store';

/** data/runs.json: every run of the store (params, last metrics, tags), what the runs page filters. */
export interface RunsIndex {
  /** The store file the site was built from. */
  store: string;
  builtAt: string;
  runs: RunSummary[];
}

/** data/runs/<id>.json: one run in full, with its metric histories and its children's ids. */
export interface RunDocument {
  run: RunDetail;
  /** Metric key → points by step (wall time dropped: the pages plot by step). */
  history: Record<string, Pick<MetricPoint, 'step' | 'value'>[]>;
  children: string[];
}

/** Reads everything the pages show through the store's public queries (nothing is written). */
export function collectSiteData(store: Store, builtAt: Date): { index: RunsIndex; documents: RunDocument[] } {
  const runs = store.listRuns();
  const children = new Map<string, string[]>();
  for (const r of runs) {
    if (r.parentRunId === null) continue;
    const list = children.get(r.parentRunId) ?? [];
    list.push(r.id);
    children.set(r.parentRunId, list);
  }
  const documents = runs.map((r): RunDocument => ({
    run: store.getRun(r.id),
    history: Object.fromEntries(
      store.metricKeys(r.id).map((k) => [k, store.metricHistory(r.id, k).map((p) => ({ step: p.step, value: p.value }))]),
    ),
    children: children.get(r.id) ?? [],
  }));
  return { index: { store: store.file, builtAt: builtAt.toISOString(), runs }, documents };
}
