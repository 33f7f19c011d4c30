import * as fs from 'fs';
import * as path from 'path';
import { UserError } from '@rred/core';
import { answerOf, parseProblem } from './problem';

/**
 * One dataset problem, one JSONL line (MATH-500-style: problem, solution, answer). `meta` holds
 * task details (steps, operand size, modulus, number of valid orders, alternative solutions, ...).
 */
export interface TaskRecord {
  id: string;
  problem: string;
  solution: string;
  answer: string;
  split: string;
  meta: Record<string, unknown>;
}

interface ReadJsonlOptions {
  /** Split given to records that have none (external sets). Default: the file name without `.jsonl`. */
  defaultSplit?: string;
}

const REQUIRED_STRINGS = ['problem', 'solution', 'answer'] as const;

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/**
 * Reads a JSONL dataset. Blank lines are skipped. A malformed line is a UserError naming the file,
 * the 1-based line number and the field. Accepted shapes: this project's records, and MATH-500-like
 * records (`unique_id` stands in for `id`; `split` defaults to `options.defaultSplit`; fields other
 * than the six known ones are kept in `meta`). Two records with one id are an error, and a record in
 * this task's format (a numeric `meta.modulus`) must parse as a task problem whose answer is its
 * `answer`: a record that contradicts its own problem is refused, not scored against.
 */
export function readJsonl(file: string, options: ReadJsonlOptions = {}): TaskRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read dataset file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const defaultSplit = options.defaultSplit ?? path.basename(file).replace(/\.jsonl$/, '');
  const records: TaskRecord[] = [];
  const firstLine = new Map<string, number>(); // id → 1-based line of its first record
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${file}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new UserError(`${where}: not valid JSON (${(e as Error).message})`);
    }
    const record = toRecord(value, where, defaultSplit);
    const first = firstLine.get(record.id);
    if (first !== undefined) throw new UserError(`${where}: duplicate id '${record.id}' (first on line ${first})`);
    firstLine.set(record.id, i + 1);
    checkTaskAnswer(record, where);
    records.push(record);
  }
  return records;
}

/** For a record in this task's format (numeric `meta.modulus`): its answer is the one its problem defines. */
function checkTaskAnswer(record: TaskRecord, where: string): void {
  const modulus = record.meta.modulus;
  if (typeof modulus !== 'number') return;
  const notation = notationOf(record, where);
  const expected = answerOf(parseProblem(notation.text, modulus, `${where}: field '${notation.field}'`));
  if (record.answer !== expected) {
    throw new UserError(
      `${where}: field 'answer' is '${record.answer}', but problem ${JSON.stringify(record.problem)} has answer '${expected}' (mod ${modulus})`,
    );
  }
}

/**
 * The problem of a task record in the task's notation (`a=4+3;b=a+8;?b`): its `problem`, or for a record of
 * the free-form bed (`meta.format: 'prose'`, the problem written as sentences) its `meta.notation`.
 */
export function notationOf(record: TaskRecord, where = `record ${record.id}`): { text: string; field: string } {
  if (record.meta.format !== 'prose') return { text: record.problem, field: 'problem' };
  if (typeof record.meta.notation !== 'string')
    throw new UserError(`${where}: a prose record needs meta.notation (the problem in the task's notation)`);
  return { text: record.meta.notation, field: 'meta.notation' };
}

function toRecord(value: unknown, where: string, defaultSplit: string): TaskRecord {
  if (typeName(value) !== 'object') throw new UserError(`${where}: expected a JSON object, got ${typeName(value)}`);
  const obj = value as Record<string, unknown>;
  const field = (name: string, v: unknown): string => {
    if (v === undefined) throw new UserError(`${where}: missing field '${name}' (expected a string)`);
    if (typeof v !== 'string') throw new UserError(`${where}: field '${name}' must be a string, got ${typeName(v)}`);
    return v;
  };
  const idKey = obj.id === undefined && obj.unique_id !== undefined ? 'unique_id' : 'id';
  const id = field(idKey, obj[idKey]);
  if (id === '') throw new UserError(`${where}: field '${idKey}' must not be empty`);
  const [problem, solution, answer] = REQUIRED_STRINGS.map((k) => field(k, obj[k]));
  const split = obj.split === undefined ? defaultSplit : field('split', obj.split);
  let meta: Record<string, unknown> = {};
  if (obj.meta !== undefined) {
    if (typeName(obj.meta) !== 'object') throw new UserError(`${where}: field 'meta' must be an object, got ${typeName(obj.meta)}`);
    meta = { ...(obj.meta as Record<string, unknown>) };
  }
  for (const [k, v] of Object.entries(obj)) {
    if (!['id', 'unique_id', 'problem', 'solution', 'answer', 'split', 'meta'].includes(k)) meta[k] = v;
  }
  if (idKey === 'unique_id') meta.unique_id = id;
  return { id, problem, solution, answer, split, meta };
}

/** Writes records as JSONL (fixed key order, one record per line), creating the directory. */
export function writeJsonl(file: string, records: readonly TaskRecord[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = records.map((r) =>
    JSON.stringify({ id: r.id, problem: r.problem, solution: r.solution, answer: r.answer, split: r.split, meta: r.meta }),
  );
  fs.writeFileSync(file, lines.length ? `${lines.join('\n')}\n` : '');
}
