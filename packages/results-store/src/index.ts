/**
 * @rred/results-store: where every run, metric, trace and estimate is recorded (a SQLite file in WAL mode, or a
 * PostgreSQL database given as a postgresql:// URL: the same schema and statements).
 *
 * Usage from an experiment:
 *   const config = parseConfig(schema, raw, 'configs/x.json'); // 1. validate: bad config → nothing written
 *   const store = openStore();                                  // 2. RRED_STORE or results/store.sqlite
 *   const run = store.startRun({ experiment: 'x', config, backend: { backend, openblasThreads } });
 *   run.logMetrics({ acc: 0.5 }, step); run.writeTraceBundle({ key, trace, segments, estimates, costs });
 *   run.finish();   // or run.fail(err); a process that dies is marked FAILED by the next open
 * or, ending the run automatically (FINISHED / FAILED / KILLED on SIGINT, SIGTERM):
 *   await withRun(store, { experiment: 'x', config, backend }, async (run) => { ... });
 * Resume: `store.resumeRun(id)` (or `withRun(store, { resume: id }, ...)`); skip `run.traceKeys()`.
 * Sweeps: `store.claimRun(opts, { key: 'runIdentity', value })` → a new run, or the FINISHED / live RUNNING run holding it.
 */
export { openStore, openStoreForReading, configHash, Store } from './store';
export { Run } from './run';
export { withRun } from './with-run';
export { inspectStoreFile } from './inspect';
export { captureRunContext } from './context';
export type { BackendInfo, RunContext } from './context';
export { resolveStorePath } from './paths';
export { isPostgresUrl } from './store-url';
export { checkOutputFile } from './output-guard';
export { parseFilter, evaluateFilter } from './filter';
export { compareRuns } from './compare';
export { formatFloat } from './floats';
export { checkRunRows, type RunRowsExport } from './run-rows';
export { openStoreOfExports, runExportFiles } from './export-store';
export { flatten } from './flatten';
export { RUN_STATUSES } from './types';
export type {
  RunStatus,
  RunSummary,
  RunDetail,
  MetricPoint,
  SegmentRecord,
  EstimateRecord,
  ContinuationRow,
  CostRecord,
  TraceBundle,
  StoredTrace,
} from './types';
