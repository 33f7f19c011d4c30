import * as fs from 'fs';
import * as path from 'path';
import { replaceOutputDir } from '@rred/core';
import type { Store } from '@rred/results-store';
import { bundleClient } from './bundle';
import { stringifyWithFloats } from './json-floats';
import { renderMarkdown } from './markdown';
import { figuresBody, pageHtml, STYLE, tablesBody, VENDOR_SCRIPTS } from './pages';
import { findResultFiles } from './results-files';
import { collectSiteData } from './site-data';

/** The file every built site holds at its root: an --out directory is replaced only when it holds it (or is empty). */
export const SITE_MARKER = '.rred-site';

interface BuildSiteOptions {
  /** The stores to show, first wins for a run in several (e.g. the session store, then the committed runs of results/runs/). */
  stores: readonly { store: Store; label: string }[];
  /** The committed results/ folder (figures and tables). */
  resultsDir: string;
  /** Output folder; replaced as a whole when it is new, empty or an earlier site (holds SITE_MARKER), else refused. */
  outDir: string;
  repoRoot: string;
  /** Build time shown on the pages (default now). */
  now?: Date;
}

interface SiteSummary {
  runs: number;
  figures: number;
  tables: number;
  files: number;
}

/**
 * The vendor scripts, from their packages in node_modules (no CDN, no network). vega-embed's exports
 * map hides build/*.min.js, but its main file sits in build/, next to it; so do the others'.
 */
function vendorSources(): Record<string, string> {
  const beside = (main: string, file: string) => path.join(path.dirname(main), file);
  return {
    'vendor/vega.min.js': beside(require.resolve('vega'), 'vega.min.js'),
    'vendor/vega-lite.min.js': beside(require.resolve('vega-lite'), 'vega-lite.min.js'),
    'vendor/vega-embed.min.js': beside(require.resolve('vega-embed'), 'vega-embed.min.js'),
  };
}

/**
 * Writes the static report site: pages, the bundled page script, the vendor scripts, data/runs.json,
 * data/runs/<id>.json, figures/** (the committed specs) and the rendered tables. The store is only
 * read. The site is written to a fresh temporary folder next to `outDir` and renamed over it, so a
 * server meanwhile never serves a half-written site (at worst, for a moment, none).
 */
export async function buildSite(opts: BuildSiteOptions): Promise<SiteSummary> {
  const now = opts.now ?? new Date();
  const { figures, tables, all } = findResultFiles(opts.resultsDir);
  const { index, documents } = collectSiteData(opts.stores, now, all);
  const script = await bundleClient(opts.repoRoot);

  const parent = path.dirname(path.resolve(opts.outDir));
  fs.mkdirSync(parent, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(parent, `.${path.basename(opts.outDir)}-`));
  let files = 0;
  const write = (rel: string, content: string | Buffer) => {
    const file = path.join(tmp, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    files++;
  };
  try {
    const subtitle = `${index.runs.length} run${index.runs.length === 1 ? '' : 's'} from ${index.store}, built ${index.builtAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}`;
    write('index.html', pageHtml('runs', '<p class="muted">Loading runs…</p>', subtitle));
    write('run.html', pageHtml('run', '<p class="muted">Loading the run…</p>', subtitle));
    write('compare.html', pageHtml('compare', '<p class="muted">Loading…</p>', subtitle));
    write('figures.html', pageHtml('figures', figuresBody(figures), subtitle));
    const rendered = tables.map((t) => ({ rel: t.rel, html: renderMarkdown(fs.readFileSync(t.file, 'utf8')) }));
    write('tables.html', pageHtml('tables', tablesBody(rendered), subtitle));
    write('style.css', STYLE);
    write('app.js', script);
    const vendor = vendorSources();
    for (const v of VENDOR_SCRIPTS) write(v, fs.readFileSync(vendor[v]));
    write('data/runs.json', stringifyWithFloats(index));
    for (const doc of documents) write(`data/runs/${doc.run.id}.json`, stringifyWithFloats(doc));
    for (const f of figures) write(`figures/${f.rel}`, fs.readFileSync(f.file));
    for (const f of all) write(`results/${f.rel}`, fs.readFileSync(f.file)); // a run's files link here
    fs.writeFileSync(
      path.join(tmp, SITE_MARKER),
      'written by notebooks:build; a directory holding this file is replaced by the next build\n',
    );
    replaceOutputDir(tmp, opts.outDir, SITE_MARKER, 'notebooks:build: --out');
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return { runs: index.runs.length, figures: figures.length, tables: tables.length, files };
}
