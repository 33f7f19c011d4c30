/**
 * The runs behind the committed results, committed with them: results/runs/<dir>.json holds, for one
 * results directory (results/mc-variance/, results/sweeps/segments/, ...), the runs it was rendered from
 * with the rows their renderers read (traces, segments, estimates, costs, continuations) and every other
 * run its provenance names (params, metrics, tags, context only: e.g. a correlation run's MC source, a
 * sweep's children). `experiments:tables` without a store re-renders results/ from these files alone,
 * the report page resolves run links from them, and `npx rred runs import FILE` loads one into a store.
 */
import * as fs from 'fs';
import * as path from 'path';
import { readJsonFile, repoRoot } from '@rred/core';
import { checkRunRows, runExportFiles, type RunRowsExport, type Store } from '@rred/results-store';

/** What a results directory shows: an experiment's runs (rendered with its renderer) or one sweep. */
export type Rendered = { kind: 'experiment'; experiment: string; runs: string[] } | { kind: 'sweep'; run: string };

interface CommittedRuns extends RunRowsExport {
  /** The results directory, relative to results/ (e.g. 'sweeps/segments'). */
  dir: string;
  rendered: Rendered;
}

const fileFor = (resultsRoot: string, dir: string) => path.join(resultsRoot, 'runs', `${dir.replace(/\//g, '-')}.json`);

/**
 * Run ids named as `run <id>` (provenance, plot subtitles) by the text files of a results directory, in order
 * of first mention: every file there, not only the ones just rendered (a tables-only render keeps the plots).
 */
function namedRuns(dir: string): string[] {
  const ids = new Set<string>();
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => /\.(md|csv|vl\.json)$/.test(x)) : [];
  for (const f of files.sort())
    for (const m of fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/\brun ([0-9a-f]{12})\b/g)) ids.add(m[1]);
  return [...ids];
}

/** One line per row, so that a changed run shows as changed lines in a diff. */
function serialize(data: CommittedRuns): string {
  const { runs, ...head } = data;
  const table = (t: { columns: string[]; rows: unknown[][] }) =>
    `{"columns":${JSON.stringify(t.columns)},"rows":[${t.rows.map((r) => `\n${JSON.stringify(r)}`).join(',')}]}`;
  const run = (r: RunRowsExport['runs'][number]) =>
    `{"id":${JSON.stringify(r.id)},"experiment":${JSON.stringify(r.experiment)},"run":${JSON.stringify(r.run)},"tables":{${Object.entries(
      r.tables,
    )
      .map(([name, t]) => `\n${JSON.stringify(name)}:${table(t)}`)
      .join(',')}}}`;
  return `${JSON.stringify(head).slice(0, -1)},"runs":[${runs.map((r) => `\n${run(r)}`).join(',')}]}\n`;
}

/**
 * Writes results/runs/<dir>.json for what the files of resultsRoot/<dir>/ were rendered from: the rendered runs
 * whole, every other run the files name bare. A named run the store does not hold is left out, with a warning.
 * Returns the file, or null when it already held exactly this.
 */
export function writeCommittedRuns(store: Store, resultsRoot: string, dir: string, rendered: Rendered): string | null {
  const main = rendered.kind === 'sweep' ? [rendered.run] : rendered.runs;
  const held = new Set(store.listRuns().map((r) => r.id));
  const named = namedRuns(path.join(resultsRoot, dir));
  const missing = named.filter((id) => !held.has(id));
  if (missing.length)
    process.stderr.write(
      `${dir}: runs ${missing.join(', ')} are named by its files but not in this store; results/runs/ leaves them out\n`,
    );
  const ids = [...new Set([...main, ...named.filter((id) => held.has(id))])];
  const data: CommittedRuns = { dir, rendered, ...store.exportRuns(ids, rendered.kind === 'sweep' ? [] : main) };
  const text = serialize({ format: data.format, version: data.version, schemaVersion: data.schemaVersion, dir, rendered, runs: data.runs });
  const file = fileFor(resultsRoot, dir);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return null;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** Whether results/runs/<dir>.json exists (in the repository's results/). */
export function hasCommittedRuns(dir: string): boolean {
  return fs.existsSync(fileFor(path.join(repoRoot(), 'results'), dir));
}

/** The runs results/<experiment>/ was rendered from, as its committed export names them ([] without one). */
export function committedRunIds(experiment: string): string[] {
  const file = fileFor(path.join(repoRoot(), 'results'), experiment);
  if (!fs.existsSync(file)) return [];
  // the head of the file names them (serialize writes `rendered` before the rows)
  const head = fs.readFileSync(file, 'utf8').split('\n', 1)[0];
  const m = /"rendered":(\{[^}]*\})/.exec(head);
  const rendered = m ? (JSON.parse(m[1]) as Rendered) : null;
  return rendered?.kind === 'experiment' ? rendered.runs : [];
}

/** Every committed export under resultsRoot/runs/, in file-name order. */
export function readCommittedRuns(resultsRoot = path.join(repoRoot(), 'results')): { file: string; data: CommittedRuns }[] {
  return runExportFiles(resultsRoot).map((file) => ({ file, data: checkRunRows(readJsonFile(file, 'run export'), file) as CommittedRuns }));
}
