import { escapeHtml } from './markdown';
import type { ResultFile } from './results-files';

/** The site's pages and the nav that links them. */
const PAGES = [
  { file: 'index.html', page: 'runs', title: 'Runs' },
  { file: 'run.html', page: 'run', title: 'Run' },
  { file: 'compare.html', page: 'compare', title: 'Compare' },
  { file: 'figures.html', page: 'figures', title: 'Figures' },
  { file: 'tables.html', page: 'tables', title: 'Tables' },
] as const;
type PageName = (typeof PAGES)[number]['page'];

/** Scripts every page loads, copied from node_modules at build time: nothing comes from a CDN. */
export const VENDOR_SCRIPTS = ['vendor/vega.min.js', 'vendor/vega-lite.min.js', 'vendor/vega-embed.min.js'];

// Only this origin: a page that tried to load anything from elsewhere would be blocked (and the
// browser test would see the console error). Vega compiles its expressions with Function ('unsafe-eval')
// and vega-embed adds a <style> element ('unsafe-inline' styles).
const CSP =
  "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

export function pageHtml(page: PageName, body: string, subtitle: string): string {
  const meta = PAGES.find((p) => p.page === page)!;
  const nav = PAGES.filter((p) => p.page !== 'run')
    .map((p) => `<a href="${p.file}"${p.page === page ? ' aria-current="page"' : ''}>${p.title}</a>`)
    .join('\n      ');
  const scripts = [...VENDOR_SCRIPTS, 'app.js'].map((s) => `  <script src="${s}"></script>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy" content="${CSP}">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="data:,">
  <title>${escapeHtml(meta.title)} · RREDCoT Lab</title>
  <link rel="stylesheet" href="style.css">
</head>
<body data-page="${page}">
  <header>
    <strong>RREDCoT Lab</strong>
    <nav>
      ${nav}
    </nav>
    <span class="subtitle">${escapeHtml(subtitle)}</span>
  </header>
  <main id="app">
${body}
  </main>
${scripts}
</body>
</html>
`;
}

/** The figures page: one section per results/ folder, one chart per committed `.vl.json` (rendered in the browser). */
export function figuresBody(figures: readonly ResultFile[]): string {
  if (figures.length === 0) return '<h1>Figures</h1>\n<p class="empty">No committed figures (results/**/*.vl.json) found.</p>';
  const groups = [...new Set(figures.map((f) => f.group))];
  return [
    '<h1>Figures</h1>',
    '<p>Every committed vega-lite spec under <code>results/</code>, interactive (hover for values).</p>',
    ...groups.map(
      (g) =>
        `<section class="figures" id="fig-${escapeHtml(g.replace(/\//g, '-'))}">\n<h2>${escapeHtml(g)}</h2>\n` +
        figures
          .filter((f) => f.group === g)
          .map(
            (f) =>
              `<figure><div class="chart" data-spec="figures/${escapeHtml(f.rel)}"></div><figcaption><code>results/${escapeHtml(f.rel)}</code></figcaption></figure>`,
          )
          .join('\n') +
        '\n</section>',
    ),
  ].join('\n');
}

/** The tables page: every committed `.md` table, rendered at build time. */
export function tablesBody(tables: readonly { rel: string; html: string }[]): string {
  if (tables.length === 0) return '<h1>Tables</h1>\n<p class="empty">No committed tables (results/**/*.md) found.</p>';
  const toc =
    '<ul class="toc">' + tables.map((t, i) => `<li><a href="#table-${i}">results/${escapeHtml(t.rel)}</a></li>`).join('') + '</ul>';
  return [
    '<h1>Tables</h1>',
    toc,
    ...tables.map(
      (t, i) =>
        `<section class="result-table" id="table-${i}">\n<p class="source"><code>results/${escapeHtml(t.rel)}</code></p>\n${t.html}\n</section>`,
    ),
  ].join('\n');
}

export const STYLE = `
:root { font-family: system-ui, sans-serif; font-size: 14px; color: #222; }
body { margin: 0; }
header { display: flex; gap: 1.5em; align-items: baseline; padding: 0.6em 1.2em; background: #f3f3f3; border-bottom: 1px solid #ddd; }
header nav a { margin-right: 1em; }
header nav a[aria-current] { font-weight: bold; text-decoration: none; color: #222; }
header .subtitle { color: #777; font-size: 0.9em; margin-left: auto; }
main { padding: 0.5em 1.2em 3em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; vertical-align: top; font-variant-numeric: tabular-nums; }
th { background: #fafafa; }
td.value { font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; max-width: 40em; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.95em; }
pre { background: #fafafa; border: 1px solid #eee; padding: 0.6em; overflow: auto; max-height: 30em; }
form.filter { display: flex; flex-wrap: wrap; gap: 0.6em; align-items: end; margin: 0.5em 0; }
form.filter label { display: flex; flex-direction: column; font-size: 0.85em; color: #555; }
form.filter input[name=where] { width: 32em; }
.error { color: #b00020; font-weight: bold; }
.empty { color: #777; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
.chart { max-width: 100%; overflow-x: auto; }
div.scroll { max-width: 100%; overflow-x: auto; }
table.compare td.value { max-width: 16em; }
.chart svg { max-width: 100%; height: auto; }
section.result-table { overflow-x: auto; max-width: 100%; }
table.grid td, table.grid th { white-space: nowrap; }
section.figures { display: flex; flex-wrap: wrap; gap: 0 2em; }
figure { max-width: 100%; }
section.figures h2 { flex-basis: 100%; }
figure { margin: 0.5em 0 1.5em; }
figcaption { color: #666; font-size: 0.85em; }
.muted { color: #888; }
tr.differs td:first-child { font-weight: bold; }
`;
