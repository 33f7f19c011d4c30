import { UserError } from '@rred/core';
import { LATEST_VERSION } from '@rred/results-store';
import { STORE_FLAG, withStore, expectPositionals, type Command } from '../command';
import { table } from '../format';

export const dbCheck: Command = {
  name: 'db check',
  summary: 'integrity check, schema version and row counts of the store',
  flags: { store: STORE_FLAG },
  run: (args, ctx) =>
    withStore(args, ctx, (store) => {
      expectPositionals(args, 'db check', 0, 0, 'none');
      const integrity = store.integrityCheck();
      const counts = store.tableCounts();
      ctx.out(
        `store      ${store.file}\n` +
          `schema     version ${store.schemaVersion} (latest ${LATEST_VERSION})\n` +
          `integrity  ${integrity.join('; ')}\n` +
          (store.reaped.length ? `marked FAILED (process died): ${store.reaped.join(', ')}\n` : '') +
          `\n${table(['table', 'rows'], Object.entries(counts).map(([t, n]) => [t, String(n)]))}\n`,
      );
      if (integrity.length !== 1 || integrity[0] !== 'ok') throw new UserError(`db check: ${store.file} failed the integrity check`, 1);
    }),
};
