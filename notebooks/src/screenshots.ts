/**
 * `npx nx run notebooks:screenshots [-- --out DIR]`: PNG screenshots of the report page as a clone shows it
 * (built from the committed runs, results/runs/, and results/ only; no store), in headless Chromium at
 * 1,400 px: the committed mc-variance run, the segments sweep, "Compare the children" of that sweep and the
 * figures page. Written to notebooks/screenshots/ (committed; README links them). Needs Debian's chromium.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium } from 'playwright-core';
import { parseCommandLine, readJsonFile, repoRoot, runMain, UserError } from '@rred/core';
import { openStoreOfExports, runExportFiles } from '@rred/results-store';
import { buildSite } from './site';
import { serveDirectory } from './static-server';

const SPEC = {
  name: 'notebooks:screenshots',
  usage: 'npx nx run notebooks:screenshots --',
  summary: 'PNG screenshots of the report page (run, sweep, compare, figures) built from the committed runs, in headless Chromium.',
  flags: {
    out: { type: 'string', value: 'DIR', path: true, description: 'where the PNGs go', default: 'notebooks/screenshots' },
    results: {
      type: 'string',
      value: 'DIR',
      path: true,
      description: 'the committed results directory (its runs/ and files)',
      default: 'results',
    },
  },
} as const;

const CHROMIUM = process.env.RRED_CHROMIUM ?? '/usr/bin/chromium';
const WIDTH = 1400;
/** Taller pages are cut here (the PNGs stay small; what is below the cut repeats what is above). */
const MAX_HEIGHT = 2400;

/** The run a committed export shows: its `rendered` runs (an experiment) or its sweep. */
function renderedRun(resultsDir: string, name: string): string {
  const file = path.join(resultsDir, 'runs', `${name}.json`);
  if (!fs.existsSync(file)) throw new UserError(`notebooks:screenshots: ${file} is missing (no committed runs for ${name})`);
  const rendered = (readJsonFile(file, 'run export') as { rendered: { kind: string; run?: string; runs?: string[] } }).rendered;
  return rendered.kind === 'sweep' ? rendered.run! : rendered.runs![0];
}

runMain(async () => {
  const flags = parseCommandLine(process.argv.slice(2), SPEC).flags;
  if (!fs.existsSync(CHROMIUM))
    throw new UserError(`notebooks:screenshots: ${CHROMIUM} not found (apt-get install -y --no-install-recommends chromium)`);
  const root = repoRoot();
  const resultsDir = path.resolve(flags.results ?? path.join(root, 'results'));
  const out = path.resolve(flags.out ?? path.join(root, 'notebooks', 'screenshots'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-screenshots-'));
  const committed = openStoreOfExports(runExportFiles(resultsDir));
  try {
    const mc = renderedRun(resultsDir, 'mc-variance');
    const sweep = renderedRun(resultsDir, 'sweeps-segments');
    const children = committed.store.listRuns({ parentRunId: sweep }).map((r) => r.id);
    await buildSite({
      stores: [{ store: committed.store, label: 'the committed runs (results/runs/)' }],
      resultsDir,
      outDir: path.join(tmp, 'site'),
      repoRoot: root,
    });
    const server = await serveDirectory(path.join(tmp, 'site'), 0);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
      fs.mkdirSync(out, { recursive: true });
      const shots: [string, string][] = [
        ['run', `run.html?id=${mc}`],
        ['sweep', `run.html?id=${sweep}`],
        ['compare', `compare.html?ids=${children.join(',')}`],
        ['figures', 'figures.html'],
      ];
      for (const [name, url] of shots) {
        await page.goto(server.url + url);
        await page.waitForFunction('document.body.dataset.ready !== undefined', null, { timeout: 120000 });
        if ((await page.evaluate('document.body.dataset.ready')) !== 'true') throw new Error(`${url}: the page reported an error`);
        const height = Math.min(MAX_HEIGHT, (await page.evaluate('document.documentElement.scrollHeight')) as number);
        const file = path.join(out, `${name}.png`);
        await page.screenshot({ path: file, clip: { x: 0, y: 0, width: WIDTH, height }, fullPage: true });
        process.stderr.write(
          `notebooks:screenshots: ${path.relative(root, file)} (${url}, ${(fs.statSync(file).size / 1024).toFixed(0)} KB)\n`,
        );
      }
    } finally {
      await browser.close();
      await server.close();
    }
  } finally {
    committed.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
