import * as path from 'path';
import { canonicalJson, type Cell, type Table, toCsv, toMarkdown, UserError, withFixedDigits } from '@rred/core';
import type { Store } from '@rred/results-store';
import { csvHeader, markdownTitle, withProvenance } from '../common/provenance';
import { writePlot } from '../report/plot';
import { writeText } from '../report/write-text';
import { pointTagOf, SWEEP_EXPERIMENT } from './run-sweep';

interface SweepParentConfig {
  experiment: string;
  gridFile: string | null;
  grid: Record<string, unknown[]>;
  points: { overrides: Record<string, unknown>; configHash: string }[];
}

const cellOf = (v: unknown): Cell =>
  typeof v === 'number' || typeof v === 'string' ? v : v === null || v === undefined ? null : canonicalJson(v);

/**
 * One row per grid point: its values, the run this sweep recorded for it (computed here or reused, by
 * id: tag `point.NNN` of the sweep run) when that run FINISHED, and its headline metrics. Runs that
 * other sweeps make later never enter, so a report never changes once its sweep has ended.
 */
function sweepTable(
  store: Store,
  sweepId: string,
  metricKeys: readonly string[],
): { table: Table; runIds: string[]; config: SweepParentConfig } {
  const parent = store.getRun(sweepId);
  if (parent.experiment !== SWEEP_EXPERIMENT) throw new UserError(`run ${parent.id} is a ${parent.experiment} run, not a sweep`);
  const config = parent.config as SweepParentConfig;
  const keys = Object.keys(config.grid);
  const runIds: string[] = [];
  const rows = config.points.map((p, i) => {
    const recorded = parent.tags[pointTagOf(i)]?.split(' ')[0];
    const run = recorded ? store.getRun(recorded) : null;
    const done = run?.status === 'FINISHED' ? run : null;
    if (done) runIds.push(done.id);
    return [
      ...keys.map((k) => cellOf(p.overrides[k])),
      done ? done.id : run ? `missing (${run.status} ${run.id})` : 'missing',
      ...metricKeys.map((m) => (done ? (done.metrics[m] ?? null) : null)),
    ];
  });
  return { table: { columns: [...keys, 'run', ...metricKeys], rows }, runIds, config };
}

/** The source runs the points read (their `sourceRun` tags), named so that the report says what it was built on. */
function sourceLine(store: Store, runIds: readonly string[]): string {
  const sources = [...new Set(runIds.map((id) => store.getRun(id).tags.sourceRun).filter((s) => s !== undefined))];
  if (sources.length === 0) return '';
  const named = sources.map((s) => (/^[0-9a-f]{12}$/.test(s) ? `run ${s}` : s));
  return ` Source of every point's traces: ${named.join(', ')}.`;
}

export async function renderSweep(
  store: Store,
  sweepId: string,
  metricKeys: readonly string[],
  outDir: string,
  what: 'tables' | 'plots' | 'both' = 'both',
): Promise<string[]> {
  const { table, runIds, config } = sweepTable(store, sweepId, metricKeys);
  const id = store.resolveRunId(sweepId);
  const title = `Sweep ${config.gridFile ?? id} over ${config.experiment}`;
  const md = [
    markdownTitle(title),
    `Grid: ${Object.entries(config.grid)
      .map(([k, v]) => `${k} ∈ {${v.map((x) => cellOf(x)).join(', ')}}`)
      .join(' × ')}; ` +
      `${runIds.length} of ${config.points.length} points have a FINISHED run.` +
      sourceLine(store, runIds),
    '',
    toMarkdown(withFixedDigits(table, [...Object.keys(config.grid), 'segments', 'skipped_traces'])),
  ].join('\n');
  const files: string[] = [];
  if (what !== 'plots') {
    files.push(path.join(outDir, 'table.md'), path.join(outDir, 'table.csv'));
    writeText(files[0], withProvenance(md, store, [id, ...runIds], `npx nx run experiments:sweep-report -- --sweep ${id}`));
    writeText(files[1], csvHeader(store, [id]) + toCsv(table));
  }
  if (what === 'tables') return files;
  const keys = Object.keys(config.grid);
  const metric = metricKeys[0];
  const values = table.rows
    .filter((r) => typeof r[keys.length + 1] === 'number')
    .map((r) => ({
      x: String(r[0]),
      series:
        keys.length > 1
          ? keys
              .slice(1)
              .map((k, i) => `${k}=${r[i + 1]}`)
              .join(', ')
          : 'all',
      y: r[keys.length + 1],
    }));
  const spec = {
    title: { text: `${metric} across ${keys.join(' × ')}`, subtitle: `sweep ${id} (${config.experiment})` },
    data: { values },
    width: 380,
    height: 240,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'ordinal', sort: (config.grid[keys[0]] ?? []).map((v) => String(cellOf(v))), title: keys[0] },
      y: { field: 'y', type: 'quantitative', title: metric },
      color: { field: 'series', type: 'nominal', title: keys.slice(1).join(', ') || null },
    },
  };
  files.push(...(await writePlot(outDir, 'plot', spec)));
  return files;
}
