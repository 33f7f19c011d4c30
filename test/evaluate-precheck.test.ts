/**
 * `evaluation:evaluate --dataFile` runs the experiments' dataset precheck before the store is touched:
 * a record whose answer contradicts its problem, a character outside the checkpoint's alphabet and a
 * prompt too long for the context are each one line naming the file and line, and no store appears.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runScript } from './fixtures/run-script';

const EVALUATE = 'packages/recipes/src/cli/evaluate.ts';
const record = (problem: string, answer: string, meta: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 'r1', problem, solution: '', answer, split: 'x', meta });

describe('evaluate --dataFile precheck', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-evaluate-precheck-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([
    [
      'an answer that contradicts its problem',
      record('a=1+1;?a', '5', { modulus: 10 }),
      /:2: field 'answer' is '5', but problem "a=1\+1;\?a" has answer '2' \(mod 10\)$/,
    ],
    [
      'a character outside the alphabet',
      record('a=1+1;?a§', '2'),
      /:2 \(record r1\): tokenizer: character "§" at index 8 of .* is not in the alphabet of checkpoint /,
    ],
    [
      'a prompt longer than the context',
      record('a=1+1;'.repeat(60) + '?a', '2'),
      /:2 \(record r1\): its prompt is \d+ tokens, the whole context of .* is \d+$/,
    ],
  ])('%s: one line, exit 2, no store created', (_name, line, expected) => {
    const file = path.join(dir, 'data.jsonl');
    fs.writeFileSync(file, `\n${line}\n`);
    const store = path.join(dir, 'store.sqlite');
    const r = runScript(EVALUATE, ['--store', store, '--dataFile', file, '--samplesPerProblem', '1']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(expected);
    expect(fs.readdirSync(dir)).toEqual(['data.jsonl']);
  });
});
