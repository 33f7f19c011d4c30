import { STORE_FLAG, textTable } from '@rred/core';
import { flatten } from '@rred/results-store';
import { withStore, expectPositionals, type Command } from '../command';
import { duration, isoTime, metricText } from '../format';

export const runsShow: Command = {
  name: 'runs show',
  summary: 'everything recorded about one run',
  args: '<id>',
  flags: { store: STORE_FLAG },
  run: (args, ctx) =>
    withStore(args, ctx, (store) => {
      const [id] = expectPositionals(args, 'runs show', 1, 1, 'a run id or unique prefix');
      const run = store.getRun(id);
      const lines: string[] = [
        `run ${run.id}  ${run.name}`,
        `experiment   ${run.experiment}`,
        `status       ${run.status}${run.failure ? ` (${run.failure})` : ''}`,
        `started      ${isoTime(run.startTime)}`,
        `ended        ${isoTime(run.endTime) || '-'}${run.endTime ? `  (${duration(run.startTime, run.endTime)})` : ''}`,
        `heartbeat    ${isoTime(run.heartbeatTime)}`,
        `attempts     ${run.attempts}`,
        `seed         ${run.seed ?? '-'}`,
        `config hash  ${run.configHash}`,
        `parent run   ${run.parentRunId ?? '-'}`,
        `process      pid ${run.pid} on ${run.hostname}`,
      ];
      const section = (title: string, header: string[], rows: string[][]) => {
        lines.push('', `${title}:`, rows.length ? textTable({ columns: header, rows }) : '  (none)');
      };
      section('params', ['key', 'value'], Object.entries(run.params));
      const metricRows = store.metricKeys(run.id).map((key) => {
        const history = store.metricHistory(run.id, key);
        const last = history[history.length - 1];
        return [key, metricText(last.value), String(last.step), String(history.length)];
      });
      section('metrics (last value)', ['key', 'value', 'step', 'points'], metricRows);
      section('tags', ['key', 'value'], Object.entries(run.tags));
      section('context', ['key', 'value'], Object.entries(flatten(run.context)));
      section(
        'artifacts',
        ['path', 'bytes', 'sha256'],
        run.artifacts.map((a) => [a.path, String(a.bytes), a.sha256]),
      );
      lines.push('', `traces: ${store.traceCount(run.id)}`);
      ctx.out(`${lines.join('\n')}\n`);
    }),
};
