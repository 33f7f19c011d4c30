/**
 * `npx nx run notebooks:build [-- --store FILE] [--out DIR] [--results DIR]`: writes the static report
 * site over the results store and the committed results/ (default notebooks/dist, git-ignored).
 */
import * as fs from 'fs';
import * as path from 'path';
import { STORE_FLAG, checkReplaceableDir, parseCommandLine, repoRoot, runMain, UserError } from '@rred/core';
import { openStoreForReading, resolveStorePath } from '@rred/results-store';
import { buildSite, SITE_MARKER } from './site';

const SPEC = {
  name: 'notebooks:build',
  usage: 'npx nx run notebooks:build --',
  summary: 'Writes the static report site over the results store and the committed results/.',
  flags: {
    store: STORE_FLAG,
    out: {
      type: 'string',
      value: 'DIR',
      path: true,
      description: `where the site goes: a new or empty directory, or an earlier site (it holds ${SITE_MARKER}); anything else is refused`,
      default: 'notebooks/dist',
    },
    results: { type: 'string', value: 'DIR', path: true, description: 'the committed results directory', default: 'results' },
  },
} as const;

runMain(async () => {
  const flags = parseCommandLine(process.argv.slice(2), SPEC).flags;
  const root = repoRoot();
  const storeFile = resolveStorePath(flags.store);
  const out = path.resolve(flags.out ?? path.join(root, 'notebooks', 'dist'));
  const results = path.resolve(flags.results ?? path.join(root, 'results'));
  // Both checked before the store is read: a mistyped --results is not an empty site, and --out is never
  // a directory this command did not write (it is replaced as a whole).
  if (!fs.statSync(results, { throwIfNoEntry: false })?.isDirectory())
    throw new UserError(`notebooks:build: --results ${results}: no such directory (expected the committed results/ folder)`);
  checkReplaceableDir(out, SITE_MARKER, 'notebooks:build: --out');
  // As `rred runs list` opens it: never created; read-only when this process may not write it.
  const store = openStoreForReading(storeFile);
  try {
    const started = Date.now();
    const s = await buildSite({ store, resultsDir: results, outDir: out, repoRoot: root });
    process.stderr.write(
      `notebooks: wrote ${out}/ (${s.runs} runs, ${s.figures} figures, ${s.tables} tables, ${s.files} files) in ${((Date.now() - started) / 1000).toFixed(1)} s; serve it with npx nx run notebooks:serve\n`,
    );
  } finally {
    store.close();
  }
});
