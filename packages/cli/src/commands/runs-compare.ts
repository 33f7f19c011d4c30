import { STORE_FLAG, textTable } from '@rred/core';
import { compareRuns } from '@rred/results-store';
import { withStore, expectPositionals, type Command } from '../command';

export const runsCompare: Command = {
  name: 'runs compare',
  summary: 'what differs between runs (params, last metrics, tags, context)',
  args: '<id> <id> [...]',
  flags: {
    all: { type: 'boolean', description: 'show identical fields too' },
    store: STORE_FLAG,
  },
  run: (args, ctx) =>
    withStore(args, ctx, (store) => {
      const ids = expectPositionals(args, 'runs compare', 2, Infinity, 'two or more run ids');
      const runs = ids.map((id) => store.getRun(id));
      const rows = compareRuns(runs);
      const shown = args.flags.all ? rows : rows.filter((r) => r.differs);
      const header = ['field', ...runs.map((r) => r.id)];
      if (shown.length === 0) {
        ctx.out(`no differences between ${runs.map((r) => r.id).join(', ')} (--all shows every field)\n`);
        return;
      }
      const body = shown.map((r) => [
        `${args.flags.all && r.differs ? '* ' : ''}${r.field}`,
        ...r.values.map((v) => (v === null ? '(missing)' : v)),
      ]);
      const same = rows.length - rows.filter((r) => r.differs).length;
      ctx.out(
        `${textTable({ columns: header, rows: body })}\n${args.flags.all ? '* = differs; ' : ''}${rows.length - same} field(s) differ, ${same} identical${args.flags.all ? '' : ' (hidden; --all shows them)'}\n`,
      );
    }),
};
