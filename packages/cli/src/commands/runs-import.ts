import * as path from 'path';
import { readJsonFile, repoRoot, STORE_FLAG } from '@rred/core';
import { checkRunRows, openStore, resolveStorePath } from '@rred/results-store';
import { expectPositionals, type Command } from '../command';

/**
 * `rred runs import FILE [...]`: adds the runs of a run export (results/runs/*.json: the runs behind the
 * committed results, with the rows their tables are rendered from) to a store, creating it if needed.
 * Runs the store already holds are left as they are.
 */
export const runsImport: Command = {
  name: 'runs import',
  summary: 'add the runs of run exports (results/runs/*.json) to a store; runs it holds already are kept',
  args: '<file.json> [...]',
  flags: { store: STORE_FLAG },
  run: (args, ctx) => {
    const files = expectPositionals(args, 'runs import', 1, Infinity, 'run export files, e.g. results/runs/mc-variance.json');
    // every file is read and checked before the store is opened: a bad file imports nothing
    const exports = files.map((f) => {
      const file = path.resolve(repoRoot(), f);
      return { file, data: checkRunRows(readJsonFile(file, 'run export'), f) };
    });
    const store = openStore(resolveStorePath(args.flags.store as string | undefined, ctx.env));
    try {
      const r = store.importRuns(exports.map((e) => ({ data: e.data, source: e.file })));
      ctx.out(`imported ${r.added.length} run(s) into ${store.file}; ${new Set(r.present).size} already there\n`);
    } finally {
      store.close();
    }
  },
};
