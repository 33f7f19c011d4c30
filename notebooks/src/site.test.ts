import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { captureRunContext, openStore } from '@rred/results-store';
import { parseWithFloats } from './json-floats';
import { buildSite, SITE_MARKER } from './site';
import type { RunDocument, RunsIndex } from './site-data';

describe('buildSite', () => {
  it('writes pages, data, specs and offline vendor scripts from the store without changing it', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-notebooks-site-'));
    const repoRoot = path.resolve(__dirname, '..', '..');
    try {
      const store = openStore(path.join(tmp, 'store.sqlite'));
      const backend = { backend: 'cpu', openblasThreads: null };
      const context = captureRunContext({ backend, argv: ['node', 'site.test'] });
      const parent = store.startRun({ experiment: 'sweep', config: { grid: 'x' }, backend, context });
      const child = store.startRun({ experiment: 'toy', config: { lr: 1e-4 }, backend, context, parentRunId: parent.id });
      child.logMetrics({ loss: 1 }, 0);
      child.logMetrics({ loss: NaN }, 1);
      child.finish();
      parent.finish();
      const before = JSON.stringify(store.listRuns());

      const resultsDir = path.join(tmp, 'results');
      fs.mkdirSync(path.join(resultsDir, 'exp'), { recursive: true });
      fs.writeFileSync(path.join(resultsDir, 'exp', 'plot.vl.json'), '{"mark":"point"}');
      fs.writeFileSync(path.join(resultsDir, 'exp', 'table.md'), '# T\n\n| a |\n| --- |\n| run 0123456789ab |\n');
      const outDir = path.join(tmp, 'site');
      fs.mkdirSync(outDir);
      fs.writeFileSync(path.join(outDir, 'stale.html'), 'old');
      fs.writeFileSync(path.join(outDir, SITE_MARKER), ''); // an earlier site: replaced

      const summary = await buildSite({ stores: [{ store, label: 'test store' }], resultsDir, outDir, repoRoot, now: new Date(0) });
      // 5 pages, style, app, 3 vendor scripts, runs.json, 2 run documents, 1 spec, the 2 result files (linked from the run page)
      expect(summary).toEqual({ runs: 2, figures: 1, tables: 1, files: 16 });
      expect(JSON.stringify(store.listRuns())).toBe(before);
      store.close();

      expect(fs.existsSync(path.join(outDir, 'stale.html'))).toBe(false); // the folder is replaced, not merged
      for (const f of [
        'index.html',
        'run.html',
        'compare.html',
        'figures.html',
        'tables.html',
        'style.css',
        'app.js',
        'vendor/vega.min.js',
        'vendor/vega-lite.min.js',
        'vendor/vega-embed.min.js',
        'figures/exp/plot.vl.json',
      ]) {
        expect(fs.existsSync(path.join(outDir, f))).toBe(true);
      }
      const index = parseWithFloats<RunsIndex>(fs.readFileSync(path.join(outDir, 'data', 'runs.json'), 'utf8'));
      expect(index.runs.map((r) => r.id)).toEqual([parent.id, child.id]);
      expect(index.runs[1].metrics.loss).toBeNaN();
      const doc = parseWithFloats<RunDocument>(fs.readFileSync(path.join(outDir, 'data', 'runs', `${parent.id}.json`), 'utf8'));
      expect(doc.children).toEqual([child.id]);
      const childDoc = parseWithFloats<RunDocument>(fs.readFileSync(path.join(outDir, 'data', 'runs', `${child.id}.json`), 'utf8'));
      expect(childDoc.history.loss.map((p) => p.step)).toEqual([0, 1]);
      expect(childDoc.history.loss[1].value).toBeNaN();
      expect(childDoc.run.params).toEqual({ lr: '0.0001' });

      const html = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
      expect(html).not.toMatch(/https?:\/\/(?!vega\.github\.io\/schema)/); // no CDN: every script is local
      expect(html).toContain('<script src="vendor/vega-embed.min.js"></script>');
      expect(fs.readFileSync(path.join(outDir, 'tables.html'), 'utf8')).toContain(
        'run <a href="run.html?id=0123456789ab">0123456789ab</a>',
      );
      expect(fs.readFileSync(path.join(outDir, 'figures.html'), 'utf8')).toContain('data-spec="figures/exp/plot.vl.json"');
      const app = fs.readFileSync(path.join(outDir, 'app.js'), 'utf8');
      expect(app).not.toMatch(/require\(|better-sqlite3/);
      expect(app).toContain('malformed filter'); // the store's own filter module is in the bundle
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
