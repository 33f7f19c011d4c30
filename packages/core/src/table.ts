/**
 * The repo's one table type and its three renderings: CSV (csv-stringify), markdown (results/*.md) and
 * aligned text for the console (`rred runs list`, the bench summaries).
 */
import { stringify } from 'csv-stringify/sync';

export type Cell = string | number | null;
export interface Table {
  columns: string[];
  rows: Cell[][];
}

/** Formats a number for a table: fixed digits, and NaN / ±Inf spelled out rather than hidden; null → '—'. */
export function fmt(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined) return '—';
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return value.toFixed(digits);
}

/**
 * CSV: one header line, one line per row, each ending in '\n'. Numbers at full precision (the repr of
 * the double), null as an empty field, quotes only where a field holds a comma, quote or line break.
 */
export function toCsv(table: Table): string {
  return stringify([table.columns, ...table.rows], { cast: { number: (x) => String(x) } });
}

/** Markdown table; integers (counts, limits) print as integers, other numbers with `fmt`'s 3 digits. */
export function toMarkdown(table: Table): string {
  const cell = (c: Cell) =>
    typeof c === 'number' ? (Number.isInteger(c) ? String(c) : fmt(c)) : c === null ? '—' : String(c).replace(/\|/g, '\\|');
  const lines = [
    `| ${table.columns.join(' | ')} |`,
    `| ${table.columns.map(() => '---').join(' | ')} |`,
    ...table.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  return `${lines.join('\n')}\n`;
}

/** A copy for markdown where the named columns are counts (integers) and every other number gets fixed digits. */
export function withFixedDigits(table: Table, countColumns: readonly string[], digits = 3): Table {
  const counts = new Set(countColumns);
  return {
    columns: table.columns,
    rows: table.rows.map((r) => r.map((c, i) => (typeof c === 'number' && !counts.has(table.columns[i]) ? fmt(c, digits) : c))),
  };
}

/**
 * Aligned text for a terminal: columns padded to their widest cell, two spaces apart, a dashed rule
 * under the header, no trailing blanks. `align: 'numbers'` right-aligns every column but the first
 * (figures line up on their last digit); the default left-aligns all. null prints as ''.
 */
export function textTable(table: Table, align: 'left' | 'numbers' = 'left'): string {
  const text = [table.columns, ...table.rows.map((r) => r.map((c) => (c === null ? '' : String(c))))];
  const widths = table.columns.map((_, c) => Math.max(...text.map((r) => (r[c] ?? '').length)));
  const pad = (s: string, c: number) => (align === 'numbers' && c > 0 ? s.padStart(widths[c]) : s.padEnd(widths[c]));
  const line = (cells: string[]) => cells.map(pad).join('  ').trimEnd();
  return [line(text[0]), line(widths.map((w) => '-'.repeat(w))), ...text.slice(1).map(line)].join('\n');
}
