import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadDataset } from './datasets';

const FIXTURES = path.join(__dirname, '..', 'fixtures');

describe('GSM8K / MATH loaders (JSONL and Parquet)', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-datasets-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };

  it('GSM8K: the final answer after ####, the solution without <<…>> annotations', async () => {
    const records = await loadDataset(path.join(FIXTURES, 'gsm8k.jsonl'), 'gsm8k');
    expect(records).toHaveLength(12);
    expect(records[0]).toEqual({
      id: 'gsm8k-0',
      problem: 'a=0+7;b=2+2;?b',
      solution: 'a=0+7=7\nb=2+2=4',
      answer: '4',
      split: 'gsm8k',
      meta: {},
    });
    expect(records.every((r) => !r.solution.includes('<<') && !r.solution.includes('####'))).toBe(true);
  });

  it('MATH: the last \\boxed{} is the answer, the reference reads it unboxed; level and type kept', async () => {
    const records = await loadDataset(path.join(FIXTURES, 'math.jsonl'), 'math');
    expect(records).toHaveLength(12);
    expect(records[0]).toEqual({
      id: 'math-00',
      problem: 'a=5-3;b=a+a;c=b+b;?c',
      solution: 'a=5-3=2\nb=2+2=4\nc=4+4=8',
      answer: '8',
      split: 'math',
      meta: { level: 'Level 1', type: 'Prealgebra' },
    });
  });

  it.each(['gsm8k', 'math'] as const)('%s: the Parquet fixture (hyparquet) gives the JSONL records', async (format) => {
    const fromJsonl = await loadDataset(path.join(FIXTURES, `${format}.jsonl`), format);
    const fromParquet = await loadDataset(path.join(FIXTURES, `${format}.parquet`), format);
    expect(fromParquet).toEqual(fromJsonl);
  });

  it('real-world GSM8K and MATH answers: thousands separators, nested boxes, several boxes', async () => {
    const gsm = write('g.jsonl', [
      JSON.stringify({ question: 'How many?', answer: 'She has 5*200 = <<5*200=1000>>1000 cents.\n#### 1,000' }),
    ]);
    expect(await loadDataset(gsm, 'gsm8k')).toMatchObject([{ answer: '1000', solution: 'She has 5*200 = 1000 cents.' }]);
    const math = write('m.jsonl', [JSON.stringify({ problem: 'p', solution: 'First $\\boxed{3}$, then $x = \\boxed{\\frac{1}{2}}$.' })]);
    expect(await loadDataset(math, 'math')).toMatchObject([{ answer: '\\frac{1}{2}', solution: 'First $3$, then $x = \\frac{1}{2}$.' }]);
  });

  it('bad records are one-line file:line errors naming the field', async () => {
    const cases: [string, string[], 'gsm8k' | 'math' | 'jsonl', RegExp][] = [
      [
        'a.jsonl',
        ['{"question":"q","answer":"4"}'],
        'gsm8k',
        /a\.jsonl:1: field 'answer': expected a GSM8K solution ending in '#### <answer>'/,
      ],
      ['b.jsonl', ['', '{"question":"q","answer":"x ####"}'], 'gsm8k', /b\.jsonl:2: field 'answer': nothing after '####'/],
      ['c.jsonl', ['{"problem":"p","solution":"no box"}'], 'math', /c\.jsonl:1: field 'solution': expected a \\boxed\{\} final answer/],
      ['d.jsonl', ['{"problem":"p","solution":"\\\\boxed{1}"}', '{nope'], 'math', /d\.jsonl:2: not valid JSON/],
      ['e.jsonl', ['{"question":3,"answer":"#### 3"}'], 'gsm8k', /e\.jsonl:1: field 'question': expected a non-empty string, got 3/],
      ['f.jsonl', ['[1]'], 'jsonl', /f\.jsonl:1: expected a JSON object/],
      [
        'g2.jsonl',
        ['{"id":"x","problem":"p","solution":"s","answer":"1"}', '{"id":"x","problem":"p","solution":"s","answer":"2"}'],
        'jsonl',
        /g2\.jsonl: duplicate id 'x'/,
      ],
      ['h.jsonl', [''], 'jsonl', /h\.jsonl: no records/],
    ];
    for (const [name, lines, format, message] of cases) await expect(loadDataset(write(name, lines), format)).rejects.toThrow(message);
    await expect(loadDataset(path.join(dir, 'missing.jsonl'), 'gsm8k')).rejects.toThrow(/missing\.jsonl: cannot read \(ENOENT\)/);
    await expect(loadDataset(write('bad.parquet', ['not parquet']), 'gsm8k')).rejects.toThrow(/bad\.parquet: not a readable Parquet file/);
    await expect(loadDataset(path.join(FIXTURES, 'math.parquet'), 'gsm8k')).rejects.toThrow(/math\.parquet: row 1: field 'answer'/);
    await expect(loadDataset(path.join(FIXTURES, 'math.jsonl'), 'csv' as never)).rejects.toThrow(
      '--format csv: expected one of gsm8k, math, jsonl',
    );
  });
});
