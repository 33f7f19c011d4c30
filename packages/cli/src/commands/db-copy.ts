import { UserError } from '@rred/core';
import { openStore, openStoreForReading, resolveStorePath } from '@rred/results-store';
import { expectPositionals, type Command } from '../command';

const LOCATION = { type: 'string', value: 'FILE|URL', path: true } as const;

/**
 * `rred db copy --from A --to B`: every run of store A (its params, metrics, tags, artifacts, traces,
 * segments, estimates, costs, continuations) into store B, either of which is a SQLite file or a
 * `postgresql://` URL; runs B already holds are kept. In one transaction on B, which ends by reading every
 * run of A back from B and comparing it row for row: a mismatch or a failure half-way leaves B unchanged.
 */
export const dbCopy: Command = {
  name: 'db copy',
  summary: 'copy every run of one store into another (SQLite file ↔ postgresql:// URL), verified row for row',
  flags: {
    from: { ...LOCATION, description: 'the store to copy from (read only)' },
    to: { ...LOCATION, description: 'the store to copy into (created, or migrated, if needed)' },
  },
  run: (args, ctx) => {
    expectPositionals(args, 'db copy', 0, 0, 'none: the stores are --from and --to');
    const [from, to] = (['from', 'to'] as const).map((f) => {
      const v = args.flags[f] as string | undefined;
      if (v === undefined) throw new UserError(`db copy: --${f} is required (a store file or a postgresql:// URL)`);
      return resolveStorePath(v, ctx.env);
    });
    if (from === to) throw new UserError(`db copy: --from and --to are the same store (${from})`);
    const source = openStoreForReading(from);
    try {
      const target = openStore(to);
      try {
        const r = target.copyRunsFrom(source);
        ctx.out(
          `copied ${r.added.length} run(s) from ${source.file} to ${target.file} (${new Set(r.present).size} already there); ` +
            `all ${r.verified} run(s) of the source verified row for row in the target\n`,
        );
      } finally {
        target.close();
      }
    } finally {
      source.close();
    }
  },
};
