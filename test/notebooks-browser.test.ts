/**
 * The report site in a real browser: headless Chromium (Debian's `chromium`) driven by
 * playwright-core. The test fills a temporary store itself (a sweep with two child runs whose params
 * differ in exactly `lr` and `method`, with step metrics and single values), builds the site from it,
 * the committed runs (results/runs/) and the committed results/, serves it on an ephemeral loopback port
 * and loads every page at 1,400 px. It fails on a blank page, a chart without SVG marks (an empty chart),
 * a chart of a metric with one step (a lone dot: those are table cells), a page wider than 1,400 px, any
 * console error or failed request, a request that leaves the server (no CDN), a compare view that shows
 * anything but the params that differ, and a run link on the tables page of a result whose runs are
 * committed that does not resolve.
 *
 * Without /usr/bin/chromium (or $RRED_CHROMIUM) the suite is skipped (counted, with a warning) unless
 * RRED_REQUIRE_BROWSER=1, which `.ci/run` sets: there a missing browser fails it.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { captureRunContext, openStore, openStoreOfExports, runExportFiles } from '@rred/results-store';
import { buildSite } from '../notebooks/src/site';
import { serveDirectory, type RunningServer } from '../notebooks/src/static-server';

/** Debian's chromium; RRED_CHROMIUM points at another build (or, in a check of this skip, at nothing). */
const CHROMIUM = process.env.RRED_CHROMIUM ?? '/usr/bin/chromium';
const browserRequired = process.env.RRED_REQUIRE_BROWSER === '1';
const browserPresent = fs.existsSync(CHROMIUM);
if (!browserPresent && !browserRequired) {
  process.stderr.write(
    `\nSKIPPED: notebooks browser test: ${CHROMIUM} not found (apt-get install -y --no-install-recommends chromium; RRED_REQUIRE_BROWSER=1 makes this a failure)\n\n`,
  );
}
const describeBrowser = browserPresent || browserRequired ? describe : describe.skip;

// Without the background-networking flags Chromium's own connections are refused by a closed network.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const repoRoot = path.resolve(__dirname, '..');
const resultsDir = path.join(repoRoot, 'results');

function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  const walk = (d: string) =>
    fs.readdirSync(d, { withFileTypes: true }).forEach((e) =>
      e.isDirectory()
        ? path.join(d, e.name) !== path.join(dir, 'scratch') && walk(path.join(d, e.name)) // not committed (git-ignored)
        : e.name.endsWith(suffix) && out.push(path.join(d, e.name)),
    );
  walk(dir);
  return out;
}

/** Per chart element: does its SVG hold data marks (paths with geometry, text or symbols), not just axes? */
function chartMarks(page: Page): Promise<{ label: string; svg: boolean; marks: number }[]> {
  return page.$$eval('div.chart', (charts) =>
    charts.map((c) => ({
      label: c.getAttribute('data-chart') ?? c.getAttribute('data-spec') ?? '',
      svg: c.querySelector('svg') !== null,
      marks: c.querySelectorAll('svg g.role-mark > path[d]:not([d=""]), svg g.role-mark > text, svg g.role-mark > g').length,
    })),
  );
}

describeBrowser('report site in headless Chromium', () => {
  let tmp: string;
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  let problems: string[] = [];
  /** How many runs the committed exports (results/runs/) hold: the site lists them beside the test store's. */
  let committedRuns = 0;
  const ids: { sweep: string; a: string; b: string } = { sweep: '', a: '', b: '' };

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-notebooks-browser-'));
    const store = openStore(path.join(tmp, 'store.sqlite'));
    const backend = { backend: 'cpu', openblasThreads: null };
    const runContext = captureRunContext({ backend, argv: ['node', 'notebooks-browser.test'] }); // one context: provenance does not differ
    const sweep = store.startRun({
      experiment: 'sweep',
      config: { grid: { lr: [1e-4, 2e-4], method: ['grpo', 'rredcot'] } },
      backend,
      context: runContext,
    });
    const base = { batch: 8, seed: 1, segmentation: { strategy: 'hybrid', maxSegments: 20 } };
    const a = store.startRun({
      experiment: 'toy',
      config: { ...base, lr: 1e-4, method: 'grpo' },
      backend,
      context: runContext,
      parentRunId: sweep.id,
      tags: { note: 'same' },
    });
    const b = store.startRun({
      experiment: 'toy',
      config: { ...base, lr: 2e-4, method: 'rredcot' },
      backend,
      context: runContext,
      parentRunId: sweep.id,
      tags: { note: 'same' },
    });
    for (let step = 0; step < 5; step++) {
      a.logMetrics({ loss: 2 - 0.3 * step, acc: 0.1 * step }, step);
      b.logMetrics({ loss: 2.2 - 0.35 * step, acc: 0.12 * step }, step);
    }
    b.logMetric('gradNorm', NaN, 0); // a NaN metric must not break a page
    b.logMetric('gradNorm', 1.5, 1);
    a.logMetrics({ final: 0.4, tokens: 120 }); // single values: table cells, never a lone-dot chart
    b.logMetrics({ final: 0.5, tokens: 130 });
    sweep.logMetrics({ ran: 2 }, 0);
    for (const r of [a, b, sweep]) r.finish();
    Object.assign(ids, { sweep: sweep.id, a: a.id, b: b.id });
    const committed = openStoreOfExports(runExportFiles(resultsDir));
    committedRuns = committed.store.listRuns().length;
    const stores = [
      { store, label: 'test store' },
      { store: committed.store, label: 'committed runs' },
    ];
    await buildSite({ stores, resultsDir, outDir: path.join(tmp, 'site'), repoRoot });
    store.close();
    committed.close();
    server = await serveDirectory(path.join(tmp, 'site'), 0);
    context = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(tmp, 'profile-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    page = await context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`request left the site: ${r.url()}`);
    });
  }, 180000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Loads a page and waits until its script says it is done (data-ready), then checks for problems. */
  async function load(url: string): Promise<void> {
    problems = [];
    await page.goto(server.url + url);
    await page.waitForFunction('document.body.dataset.ready !== undefined', null, { timeout: 60000 });
    expect(await page.evaluate('document.body.dataset.ready')).toBe('true');
  }

  /** Every page: no empty chart, no chart of a single-step metric, nothing wider than the 1,400 px window. */
  async function checkLayout(singleStep: readonly string[] = []): Promise<void> {
    const charts = await chartMarks(page);
    for (const c of charts) expect({ chart: c.label, drawn: c.svg && c.marks > 0 }).toEqual({ chart: c.label, drawn: true });
    if (singleStep.length) expect(charts.map((c) => c.label).filter((l) => singleStep.includes(l))).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1400);
  }

  afterEach(() => {
    expect(problems).toEqual([]);
  });

  it('runs: lists every run, and the filter language of rred runs list selects among them', async () => {
    await load('index.html');
    expect(await page.textContent('h1')).toBe('Runs');
    await checkLayout();
    expect(await page.$$eval('table.runs tbody tr', (rows) => rows.length)).toBe(3 + committedRuns);
    await page.fill('input[name=where]', 'params.lr > 1.5e-4 and metrics.loss < 1');
    await Promise.all([page.waitForURL(/where=/), page.click('button[type=submit]')]);
    await page.waitForFunction('document.body.dataset.ready !== undefined');
    const shown = await page.$$eval('table.runs tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent));
    expect(shown).toEqual([ids.b]);
    // A malformed filter is the store's one-line error on the page, not a broken page.
    await load(`index.html?where=${encodeURIComponent('params.lr >> 1')}`);
    expect(await page.textContent('p.error')).toMatch(/^malformed filter "params\.lr >> 1" at position/);
  }, 120000);

  it('run: params, metrics with curves, provenance and children', async () => {
    await load(`run.html?id=${ids.a.slice(0, 8)}`);
    expect(await page.textContent('h1')).toBe(`Run ${ids.a}`);
    const params = await page.$$eval('table.params tr', (rows) =>
      rows.map((r) => [r.querySelector('th')?.textContent, r.querySelector('td')?.textContent]),
    );
    expect(params).toEqual(
      expect.arrayContaining([
        ['lr', '0.0001'],
        ['method', 'grpo'],
        ['segmentation.maxSegments', '20'],
      ]),
    );
    const charts = await chartMarks(page);
    expect(charts.map((c) => c.label).sort()).toEqual(['acc', 'loss']);
    await checkLayout(['final', 'tokens']);
    // single values are a table
    expect(await page.$$eval('table.metrics tbody tr td:first-child', (cells) => cells.map((c) => c.textContent))).toEqual([
      'final',
      'tokens',
    ]);
    expect(await page.textContent('table.provenance')).toContain('git.commit');
    await load(`run.html?id=${ids.sweep}`);
    expect(await page.$$eval('table.children tbody tr td:first-child', (cells) => cells.map((c) => c.textContent))).toEqual([ids.a, ids.b]);
    // the grid values as columns, one small multiple per metric across the grid
    expect(await page.$$eval('table.grid thead th', (th) => th.map((c) => c.textContent))).toEqual([
      'run',
      'status',
      'lr',
      'method',
      'final',
      'tokens',
    ]);
    expect((await chartMarks(page)).map((c) => c.label).sort()).toEqual(['acc', 'final', 'gradNorm', 'loss', 'tokens']);
    await checkLayout();
  }, 120000);

  it('compare: exactly the params that differ, and every metric overlaid by step', async () => {
    await load(`compare.html?ids=${ids.a},${ids.b}`);
    const fields = await page.$$eval('table.compare tbody tr', (rows) => rows.map((r) => r.getAttribute('data-field') ?? ''));
    expect(fields.filter((f) => f.startsWith('params.'))).toEqual(['params.lr', 'params.method']);
    expect(fields).not.toContain('tags.note');
    const lr = await page.$$eval('table.compare tr[data-field="params.lr"] td.value', (cells) => cells.map((c) => c.textContent));
    expect(lr).toEqual(['0.0001', '0.0002']);
    const charts = await chartMarks(page);
    expect(charts.map((c) => c.label)).toEqual(['final', 'tokens', 'acc', 'gradNorm', 'loss']);
    await checkLayout();
    // Overlaid: the loss chart draws one line per run, named by its grid values (not its id).
    expect(await page.$$eval('div.chart[data-chart="loss"] g.mark-line.role-mark > path', (p) => p.length)).toBe(2);
    expect(await page.textContent('div.chart[data-chart="loss"]')).toContain('lr=0.0001, method=grpo');
  }, 120000);

  it('figures: every committed .vl.json spec renders as an interactive SVG chart', async () => {
    await load('figures.html');
    const charts = await chartMarks(page);
    expect(charts).toHaveLength(filesUnder(resultsDir, '.vl.json').length);
    for (const c of charts) expect({ spec: c.label, rendered: c.svg && c.marks > 0 }).toEqual({ spec: c.label, rendered: true });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1400);
  }, 120000);

  it('tables: every committed .md table is on the page', async () => {
    await load('tables.html');
    const mdFiles = filesUnder(resultsDir, '.md');
    expect(await page.$$eval('section.result-table', (s) => s.length)).toBe(mdFiles.length);
    expect(await page.$$eval('section.result-table table tbody tr', (rows) => rows.length)).toBeGreaterThan(mdFiles.length);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1400);
    // every run link of a result whose runs are committed (results/runs/<dir>.json) opens a run the site has
    const known = new Set(
      JSON.parse(fs.readFileSync(path.join(tmp, 'site', 'data', 'runs.json'), 'utf8')).runs.map((r: { id: string }) => r.id),
    );
    const links = await page.$$eval('section.result-table', (sections) =>
      sections.map((s) => ({
        rel: (s.querySelector('p.source code')?.textContent ?? '').replace(/^results\//, ''),
        ids: [...s.querySelectorAll('a[href^="run.html?id="]')].map((a) => a.textContent ?? ''),
      })),
    );
    const covered = links.filter((l) => fs.existsSync(path.join(resultsDir, 'runs', `${path.dirname(l.rel).replace(/\//g, '-')}.json`)));
    for (const l of covered) expect({ table: l.rel, dead: l.ids.filter((id) => !known.has(id)) }).toEqual({ table: l.rel, dead: [] });
  }, 120000);
});
