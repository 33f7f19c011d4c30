import { STORE_FLAG, toCsv, UserError, writeOutputFile } from '@rred/core';
import { checkOutputFile, formatFloat, resolveStorePath, type MetricPoint, type RunDetail } from '@rred/results-store';
import { withStore, type Command } from '../command';
import { ALLOW_PARTIAL_FLAG, checkFinished } from './partial';

/** One row per run: run fields, then params.*, metrics.* (last value), tags.* (union over runs). */
function runsToCsv(runs: RunDetail[]): string {
  const keys = (pick: (r: RunDetail) => Record<string, unknown>, prefix: string) =>
    [...new Set(runs.flatMap((r) => Object.keys(pick(r))))].sort().map((k) => `${prefix}${k}`);
  const extra = [...keys((r) => r.params, 'params.'), ...keys((r) => r.metrics, 'metrics.'), ...keys((r) => r.tags, 'tags.')];
  const header = [
    'id',
    'experiment',
    'name',
    'status',
    'start_time',
    'end_time',
    'seed',
    'config_hash',
    'parent_run_id',
    'attempts',
    'git_commit',
    ...extra,
  ];
  const rows = runs.map((r) => [
    r.id,
    r.experiment,
    r.name,
    r.status,
    new Date(r.startTime).toISOString(),
    r.endTime === null ? '' : new Date(r.endTime).toISOString(),
    r.seed === null ? '' : String(r.seed),
    r.configHash,
    r.parentRunId ?? '',
    String(r.attempts),
    r.context.git?.commit ?? '',
    ...extra.map((col) => {
      const dot = col.indexOf('.');
      const scope = col.slice(0, dot);
      const key = col.slice(dot + 1);
      if (scope === 'metrics') return key in r.metrics ? formatFloat(r.metrics[key]) : '';
      const bag = scope === 'params' ? r.params : r.tags;
      return bag[key] ?? '';
    }),
  ]);
  return toCsv({ columns: header, rows });
}

/** JSON cannot hold NaN, ±Infinity or -0: they are written as the strings "NaN", "Infinity", "-Infinity", "-0". */
function jsonNumber(_key: string, v: unknown): unknown {
  if (typeof v !== 'number') return v;
  if (Number.isNaN(v) || !Number.isFinite(v)) return String(v);
  return Object.is(v, -0) ? '-0' : v;
}

export const runsExport: Command = {
  name: 'runs export',
  summary: 'export runs as CSV (one row per run) or JSON (full detail with metric histories)',
  args: '<id> [...] | --experiment NAME',
  flags: {
    experiment: { type: 'string', value: 'NAME', description: 'export every run of this experiment' },
    format: { type: 'string', value: 'csv|json', description: 'output format (required)' },
    out: {
      type: 'string',
      value: 'FILE',
      path: true,
      description:
        'write to FILE instead of stdout (atomically, only over a regular file; never the store, its -wal/-shm, or any SQLite file)',
    },
    'allow-partial': ALLOW_PARTIAL_FLAG,
    store: STORE_FLAG,
  },
  run: (args, ctx) => {
    // checked before the store is opened: a bad --out writes nothing anywhere
    const outFlag = args.flags.out as string | undefined;
    const out =
      outFlag === undefined
        ? undefined
        : checkOutputFile(outFlag, resolveStorePath(args.flags.store as string | undefined, ctx.env), 'runs export: --out');
    return withStore(args, ctx, (store) => {
      const format = args.flags.format;
      if (format !== 'csv' && format !== 'json')
        throw new UserError(`runs export: --format must be csv or json, got ${format === undefined ? 'nothing' : `'${String(format)}'`}`);
      const experiment = args.flags.experiment as string | undefined;
      if ((experiment === undefined) === (args.positionals.length === 0))
        throw new UserError('runs export: give run ids or --experiment NAME (exactly one of the two)');
      const ids = experiment !== undefined ? store.listRuns({ experiment }).map((r) => r.id) : args.positionals;
      if (experiment !== undefined && ids.length === 0)
        throw new UserError(`runs export: experiment '${experiment}' has no runs in ${store.file}`);
      const runs = ids.map((id) => store.getRun(id));
      const note = checkFinished('runs export', runs, Boolean(args.flags['allow-partial']));
      let text: string;
      if (format === 'csv') {
        text = runsToCsv(runs);
      } else {
        const full = runs.map((r) => ({
          ...r,
          metricHistory: Object.fromEntries(store.metricKeys(r.id).map((k): [string, MetricPoint[]] => [k, store.metricHistory(r.id, k)])),
        }));
        text = `${JSON.stringify(full, jsonNumber, 2)}\n`;
      }
      if (out === undefined) {
        ctx.out(text);
        return;
      }
      writeOutputFile(out, text, 'runs export: --out');
      ctx.out(`wrote ${runs.length} run${runs.length === 1 ? '' : 's'} to ${outFlag}${note}\n`);
    });
  },
};
