/**
 * `npx nx run notebooks:build [-- --store FILE] [--out DIR] [--results DIR]`: writes the static report
 * site over the results store and the committed results/ (default notebooks/dist, git-ignored).
 */
import * as fs from 'fs';
import * as path from 'path';
import { STORE_FLAG, checkReplaceableDir, parseCommandLine, repoRoot, runMain, UserError } from '@rred/core';
import { openStoreForReading, openStoreOfExports, resolveStorePath, runExportFiles } from '@rred/results-store';
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
  // The session store as `rred runs list` opens it (never created; read-only when this process may not write
  // it), and the runs behind the committed results (results/runs/*.json): a clone without a store still
  // gets every run a committed table names. A --store that does not exist is an error; the default may be missing.
  const exportFiles = runExportFiles(results);
  const haveStore = flags.store !== undefined || !!process.env.RRED_STORE || fs.existsSync(storeFile);
  if (!haveStore && exportFiles.length === 0) openStoreForReading(storeFile); // its one-line error: no store, no committed runs
  const store = haveStore ? openStoreForReading(storeFile) : null;
  const committed = exportFiles.length ? openStoreOfExports(exportFiles) : null;
  try {
    const started = Date.now();
    const stores = [
      ...(store ? [{ store, label: path.relative(root, store.file).startsWith('..') ? store.file : path.relative(root, store.file) }] : []),
      ...(committed ? [{ store: committed.store, label: `the committed runs (${path.relative(root, results) || '.'}/runs/)` }] : []),
    ];
    const s = await buildSite({ stores, resultsDir: results, outDir: out, repoRoot: root });
    process.stderr.write(
      `notebooks: wrote ${out}/ (${s.runs} runs, ${s.figures} figures, ${s.tables} tables, ${s.files} files) in ${((Date.now() - started) / 1000).toFixed(1)} s; serve it with npx nx run notebooks:serve\n`,
    );
  } finally {
    store?.close();
    committed?.close();
  }
});
