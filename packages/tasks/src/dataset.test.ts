import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from '@rred/core';
import { readJsonl, writeJsonl, type TaskRecord } from './dataset';

describe('JSONL datasets', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-tasks-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const record: TaskRecord = { id: 'x-1', problem: 'a=1+2;?a', solution: 'a=1+2=3', answer: '3', split: 'validation', meta: { steps: 1 } };

  function write(name: string, lines: string[]): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.join('\n'));
    return file;
  }

  function errorOf(fn: () => unknown): Error {
    try {
      fn();
    } catch (e) {
      return e as Error;
    }
    throw new Error('expected an error');
  }

  it('refuses a second record with the same id, naming both lines', () => {
    const file = write('dup.jsonl', [JSON.stringify(record), JSON.stringify({ ...record, id: 'x-2' }), JSON.stringify(record)]);
    const e = errorOf(() => readJsonl(file));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe(`${file}:3: duplicate id 'x-1' (first on line 1)`);
  });

  it('checks a task-format record (numeric meta.modulus) against its own problem', () => {
    const task = { ...record, problem: 'a=4+3;b=a+8;?b', solution: 'a=4+3=7\nb=7+8=5', answer: '5', meta: { modulus: 10 } };
    expect(readJsonl(write('task-ok.jsonl', [JSON.stringify(task)]))[0].answer).toBe('5');
    const composite = { ...task, id: 'x-3', problem: 'a=4+3;b=a+8;?a,b', answer: '7,5' };
    expect(readJsonl(write('task-composite.jsonl', [JSON.stringify(composite)]))[0].answer).toBe('7,5');

    const wrongFile = write('task-wrong.jsonl', [JSON.stringify(task), JSON.stringify({ ...task, id: 'x-4', answer: '6' })]);
    const wrong = errorOf(() => readJsonl(wrongFile));
    expect(wrong).toBeInstanceOf(UserError);
    expect(wrong.message).toBe(`${wrongFile}:2: field 'answer' is '6', but problem "a=4+3;b=a+8;?b" has answer '5' (mod 10)`);

    const garbledFile = write('task-garbled.jsonl', [JSON.stringify({ ...task, problem: 'a=4+3;?z' })]);
    const garbled = errorOf(() => readJsonl(garbledFile));
    expect(garbled).toBeInstanceOf(UserError);
    expect(garbled.message).toContain(`${garbledFile}:1: field 'problem': not a task problem`);

    // without meta.modulus a record is not in the task format, so its answer is not checked (MATH-500 and the like)
    expect(readJsonl(write('free.jsonl', [JSON.stringify({ ...task, answer: '6', meta: {} })]))[0].answer).toBe('6');
  });

  it('round-trips records', () => {
    const file = path.join(dir, 'sub', 'rt.jsonl');
    writeJsonl(file, [record, { ...record, id: 'x-2' }]);
    expect(readJsonl(file)).toEqual([record, { ...record, id: 'x-2' }]);
  });

  it('loads a MATH-500-style record: unique_id, default split, extra fields kept in meta', () => {
    const file = write('math500.jsonl', [
      JSON.stringify({
        problem: 'What is 1+1?',
        solution: '1+1=2',
        answer: '2',
        subject: 'Algebra',
        level: 1,
        unique_id: 'test/algebra/1.json',
      }),
      '',
    ]);
    expect(readJsonl(file)).toEqual([
      {
        id: 'test/algebra/1.json',
        problem: 'What is 1+1?',
        solution: '1+1=2',
        answer: '2',
        split: 'math500',
        meta: { subject: 'Algebra', level: 1, unique_id: 'test/algebra/1.json' },
      },
    ]);
    expect(readJsonl(file, { defaultSplit: 'test' })[0].split).toBe('test');
  });

  it('names file, line and problem for bad JSON', () => {
    const file = write('bad.jsonl', [JSON.stringify(record), '', '{"id": "x-3", "problem": ']);
    const err = errorOf(() => readJsonl(file));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(`${file}:3: not valid JSON`);
  });

  it('names file, line and field for a missing or mistyped field', () => {
    const { answer: _omit, ...noAnswer } = record;
    const missing = write('missing.jsonl', [JSON.stringify(record), JSON.stringify(noAnswer)]);
    expect(errorOf(() => readJsonl(missing)).message).toBe(`${missing}:2: missing field 'answer' (expected a string)`);
    const typed = write('typed.jsonl', [JSON.stringify({ ...record, answer: 3 })]);
    expect(errorOf(() => readJsonl(typed)).message).toBe(`${typed}:1: field 'answer' must be a string, got number`);
    const meta = write('meta.jsonl', [JSON.stringify({ ...record, meta: [1] })]);
    expect(errorOf(() => readJsonl(meta)).message).toBe(`${meta}:1: field 'meta' must be an object, got array`);
    const arr = write('arr.jsonl', ['[1,2]']);
    expect(errorOf(() => readJsonl(arr)).message).toBe(`${arr}:1: expected a JSON object, got array`);
    const noId = write('noid.jsonl', [JSON.stringify({ ...record, id: undefined })]);
    expect(errorOf(() => readJsonl(noId)).message).toBe(`${noId}:1: missing field 'id' (expected a string)`);
  });

  it('names a missing file', () => {
    const file = path.join(dir, 'nope.jsonl');
    const err = errorOf(() => readJsonl(file));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`cannot read dataset file ${file}: ENOENT`);
  });
});
