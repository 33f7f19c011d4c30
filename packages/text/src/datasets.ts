import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserError } from '@rred/core';
import type { TaskRecord } from '@rred/tasks';
import { boxedContents, unboxed } from './boxed';
import { readParquetRows } from './parquet';

/**
 * Dataset formats:
 *  - gsm8k: {question, answer}, the answer a worked solution ending in `#### <final answer>`; the reference
 *    solution is the text before `####` without its `<<…>>` calculator annotations, the final answer is
 *    what follows `####` (thousands separators removed);
 *  - math: {problem, solution}, the final answer being the solution's last `\boxed{}`; the reference is
 *    the solution with each `\boxed{X}` read as X;
 *  - jsonl: the lab's own records {id, problem, solution, answer}.
 * Optional `id` (else `<file stem>-<index>`), `level`, `type` and `subject` go to `meta`.
 */
export const DATASET_FORMATS = ['gsm8k', 'math', 'jsonl'] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

function text(row: Record<string, unknown>, field: string, where: string): string {
  const v = row[field];
  if (typeof v !== 'string' || v.trim() === '')
    throw new UserError(`${where}: field '${field}': expected a non-empty string, got ${JSON.stringify(v)?.slice(0, 40)}`);
  return v;
}

/** One record in the lab's shape from a row of the given format; errors name `where` (file:line or file: row n). */
function recordOf(row: unknown, format: DatasetFormat, where: string, fallbackId: string, split: string): TaskRecord {
  if (!row || typeof row !== 'object' || Array.isArray(row))
    throw new UserError(`${where}: expected a JSON object, got ${JSON.stringify(row)?.slice(0, 40)}`);
  const r = row as Record<string, unknown>;
  const id = r.id === undefined ? fallbackId : String(r.id);
  const meta = Object.fromEntries(['level', 'type', 'subject'].filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
  if (format === 'gsm8k') {
    const worked = text(r, 'answer', where);
    const at = worked.lastIndexOf('####');
    if (at < 0) throw new UserError(`${where}: field 'answer': expected a GSM8K solution ending in '#### <answer>'`);
    const answer = worked
      .slice(at + 4)
      .trim()
      .replace(/,(?=\d{3}\b)/g, '');
    if (answer === '') throw new UserError(`${where}: field 'answer': nothing after '####'`);
    const solution = worked
      .slice(0, at)
      .replace(/<<[^>]*>>/g, '')
      .trim();
    return { id, problem: text(r, 'question', where), solution, answer, split, meta };
  }
  if (format === 'math') {
    const solution = text(r, 'solution', where);
    const boxes = boxedContents(solution);
    if (boxes.length === 0) throw new UserError(`${where}: field 'solution': expected a \\boxed{} final answer`);
    return {
      id,
      problem: text(r, 'problem', where),
      solution: unboxed(solution).trim(),
      answer: boxes[boxes.length - 1].trim(),
      split,
      meta,
    };
  }
  return { id, problem: text(r, 'problem', where), solution: text(r, 'solution', where), answer: text(r, 'answer', where), split, meta };
}

/**
 * Loads a dataset file of the given format: JSONL (one record per line; blank lines skipped) or Parquet
 * (by the .parquet extension). Bad records are one-line errors naming file:line (JSONL) or file: row n
 * (Parquet) and the field; duplicate ids are refused.
 */
export async function loadDataset(file: string, format: DatasetFormat): Promise<TaskRecord[]> {
  if (!DATASET_FORMATS.includes(format)) throw new UserError(`--format ${format}: expected one of ${DATASET_FORMATS.join(', ')}`);
  const stem = path.basename(file).replace(/\.(jsonl|parquet)$/, '');
  const records: TaskRecord[] = [];
  if (file.endsWith('.parquet')) {
    const rows = await readParquetRows(file);
    rows.forEach((row, i) => records.push(recordOf(row, format, `${file}: row ${i + 1}`, `${stem}-${i}`, stem)));
  } else {
    let content: string;
    try {
      content = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new UserError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    content.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch (err) {
        throw new UserError(`${file}:${i + 1}: not valid JSON (${(err as Error).message})`);
      }
      records.push(recordOf(row, format, `${file}:${i + 1}`, `${stem}-${records.length}`, stem));
    });
  }
  if (records.length === 0) throw new UserError(`${file}: no records`);
  const seen = new Set<string>();
  for (const r of records) {
    if (seen.has(r.id)) throw new UserError(`${file}: duplicate id '${r.id}'`);
    seen.add(r.id);
  }
  return records;
}
