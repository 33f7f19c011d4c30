import * as fs from 'fs';
import * as path from 'path';

/** A committed result file of results/, by experiment (its first folder, e.g. `mc-variance`, `sweeps/segments`). */
export interface ResultFile {
  /** Path relative to results/, with '/' separators. */
  rel: string;
  /** The folder under results/ it sits in, e.g. 'mc-variance' or 'sweeps/segments'. */
  group: string;
  file: string;
}

function walk(dir: string, out: string[], skip: string): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(dir, e.name);
    if (e.isDirectory() && full !== skip) walk(full, out, skip);
    else if (e.isFile()) out.push(full);
  }
}

/**
 * The vega-lite specs (`*.vl.json`), the Markdown tables (`*.md`) and every result file (`all`: tables, CSVs,
 * JSON, plots; not the run exports under runs/) under `resultsDir`, sorted by path.
 */
export function findResultFiles(resultsDir: string): { figures: ResultFile[]; tables: ResultFile[]; all: ResultFile[] } {
  const files: string[] = [];
  // results/scratch/ holds the renders of uncommitted configs (git-ignored): not a committed result
  if (fs.existsSync(resultsDir)) walk(resultsDir, files, path.join(resultsDir, 'scratch'));
  const toResult = (file: string): ResultFile => {
    const rel = path.relative(resultsDir, file).split(path.sep).join('/');
    return { rel, group: path.posix.dirname(rel), file };
  };
  return {
    figures: files.filter((f) => f.endsWith('.vl.json')).map(toResult),
    tables: files.filter((f) => f.endsWith('.md')).map(toResult),
    all: files.map(toResult).filter((f) => !f.rel.startsWith('runs/')),
  };
}
