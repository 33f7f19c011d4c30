import { STORE_FLAG, textTable, UserError } from '@rred/core';
import { RUN_STATUSES, type RunStatus, type RunSummary } from '@rred/results-store';
import { withStore, expectPositionals, type Command } from '../command';
import { duration, isoTime, metricText } from '../format';

function column(run: RunSummary, field: string): string {
  if (field.startsWith('params.')) return run.params[field.slice(7)] ?? '';
  if (field.startsWith('metrics.')) return metricText(run.metrics[field.slice(8)]);
  if (field.startsWith('tags.')) return run.tags[field.slice(5)] ?? '';
  throw new UserError(`runs list: --columns entry '${field}' must start with params., metrics. or tags.`);
}

export const runsList: Command = {
  name: 'runs list',
  summary: 'list runs, optionally filtered',
  flags: {
    experiment: { type: 'string', value: 'NAME', description: 'only runs of this experiment' },
    parent: { type: 'string', value: 'ID', description: 'only child runs of this (sweep) run' },
    status: { type: 'string', value: 'STATUS', description: `only runs with this status (${RUN_STATUSES.join(', ')})` },
    where: {
      type: 'string',
      value: 'FILTER',
      description: `filter, e.g. "params.lr > 1e-4 and metrics.acc >= 0.5" (fields params.X, metrics.X (last value), tags.X, id, name, experiment, status, seed, attempts, config_hash, parent, start_time, end_time; = != < <= > >=; and/or; parentheses)`,
    },
    columns: { type: 'string', value: 'LIST', description: 'extra comma-separated columns, e.g. params.lr,metrics.acc' },
    store: STORE_FLAG,
  },
  run: (args, ctx) =>
    withStore(args, ctx, (store) => {
      expectPositionals(args, 'runs list', 0, 0, 'none');
      const status = args.flags.status as string | undefined;
      if (status !== undefined && !RUN_STATUSES.includes(status as RunStatus)) {
        throw new UserError(`runs list: --status got '${status}', expected one of ${RUN_STATUSES.join(', ')}`);
      }
      const extra = args.flags.columns
        ? String(args.flags.columns)
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean)
        : [];
      const parent = args.flags.parent === undefined ? undefined : store.resolveRunId(args.flags.parent as string);
      const runs = store.listRuns({
        parentRunId: parent,
        experiment: args.flags.experiment as string | undefined,
        status: status as RunStatus | undefined,
        where: args.flags.where as string | undefined,
      });
      if (runs.length === 0) {
        ctx.out('no runs match\n');
        return;
      }
      const header = ['id', 'experiment', 'name', 'status', 'started (UTC)', 'duration', ...extra];
      const rows = runs.map((r) => [
        r.id,
        r.experiment,
        r.name,
        r.status,
        isoTime(r.startTime),
        duration(r.startTime, r.endTime),
        ...extra.map((c) => column(r, c)),
      ]);
      ctx.out(`${textTable({ columns: header, rows })}\n${runs.length} run${runs.length === 1 ? '' : 's'}\n`);
    }),
};
