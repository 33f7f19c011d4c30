import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '@rred/core';

/**
 * Writes results/bench/<name>.json (pretty, trailing newline) and returns its path. Every bench
 * section writes its own file so sections can be re-run independently.
 */
export function writeBenchResult(name: string, data: unknown): string {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`bench result name must be kebab-case, got ${JSON.stringify(name)}`);
  const file = path.join(repoRoot(), 'results', 'bench', `${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** Fixed-width text table for the console. */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
