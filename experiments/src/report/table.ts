import * as fs from 'fs';
import * as path from 'path';

export type Cell = string | number | null;
export interface Table {
  columns: string[];
  rows: Cell[][];
}

/** Formats a number for a table: fixed digits, and NaN / ±Inf spelled out rather than hidden. */
export function fmt(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined) return '—';
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return value.toFixed(digits);
}

export function toMarkdown(table: Table): string {
  // integers (counts, limits) print as integers; other numbers with fixed digits
  const cell = (c: Cell) =>
    typeof c === 'number' ? (Number.isInteger(c) ? String(c) : fmt(c)) : c === null ? '—' : String(c).replace(/\|/g, '\\|');
  const lines = [
    `| ${table.columns.join(' | ')} |`,
    `| ${table.columns.map(() => '---').join(' | ')} |`,
    ...table.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  return `${lines.join('\n')}\n`;
}

/** CSV with full-precision numbers (repr of the double), quoting only where needed. */
export function toCsv(table: Table): string {
  const cell = (c: Cell) => {
    if (c === null) return '';
    const text = String(c);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [table.columns, ...table.rows].map((r) => r.map(cell).join(',')).join('\n') + '\n';
}

export function writeText(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A copy for markdown where the named columns are counts (integers) and every other number gets fixed digits. */
export function withFixedDigits(table: Table, countColumns: readonly string[], digits = 3): Table {
  const counts = new Set(countColumns);
  return {
    columns: table.columns,
    rows: table.rows.map((r) => r.map((c, i) => (typeof c === 'number' && !counts.has(table.columns[i]) ? fmt(c, digits) : c))),
  };
}
