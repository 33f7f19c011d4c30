import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeOutcome, displayPath, publishRender } from './publish';

/** A render of `files` (name → text) as publishRender expects it. */
const render = (files: Record<string, string>) => async (dir: string) =>
  Object.entries(files).map(([name, text]) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  });

const table = (id: string, x: string, printed: string) => ({
  'table.md': `# T\n\n| a |\n| --- |\n| ${printed} |\n\n## Provenance\n\n- git 0123456789ab (clean): run ${id} (seed 1)\n`,
  'a.csv': `# run ${id} (mc, FINISHED), git 0123456789ab (clean)\na\n${x}\n`,
  'p.vl.json': `{"title": {"subtitle": "run ${id}: 3 traces"}, "data": [${x}]}\n`,
  'p.svg': `<svg>${id}</svg>`,
});

describe('publishRender', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-publish-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'out');
  const files = () => Object.fromEntries(fs.readdirSync(out).map((f) => [f, fs.readFileSync(path.join(out, f), 'utf8')]));

  it('writes a first render, then leaves files untouched when a new run reproduces their numbers', async () => {
    expect((await publishRender(out, render(table('aaaaaaaaaaaa', '-0.35953949633771504', '-0.360')))).kind).toBe('written');
    const before = files();
    const same = await publishRender(out, render(table('bbbbbbbbbbbb', '-0.35953949633771504', '-0.360')));
    expect(describeOutcome(same, 'results/x', 'OpenBLAS Haswell, 2 thread(s)')).toBe(
      'reproduced results/x exactly (4 files; computed with OpenBLAS Haswell, 2 thread(s))',
    );
    // float noise of another kernel family, and a rounding flip of the printed value
    const near = await publishRender(out, render(table('cccccccccccc', '-0.3595394908006837', '-0.359')));
    expect(near.kind).toBe('tolerance');
    expect(near.notes).toEqual([
      'largest difference 5.5e-9 (-0.35953949633771504 → -0.3595394908006837) in a.csv',
      '1 printed value(s) rounded the other way',
    ]);
    expect(files()).toEqual(before);
  });

  it('rewrites every file and says what changed when a number moves beyond the tolerance', async () => {
    const moved = await publishRender(out, render(table('dddddddddddd', '-0.3596', '-0.360')));
    expect(moved.kind).toBe('written');
    expect(moved.notes).toEqual([
      expect.stringMatching(/^changed: a\.csv, line 2: '-0\.35953949633771504' → '-0\.3596'/),
      expect.stringMatching(/^changed: p\.vl\.json/),
      'changed: p.svg (its p.vl.json changed)',
    ]);
    expect(files()['table.md']).toContain('run dddddddddddd');
  });

  it('shows a path outside the working directory as absolute, one inside it relative', () => {
    expect(displayPath('/tmp/mc-seed2')).toBe('/tmp/mc-seed2');
    expect(displayPath(path.join(process.cwd(), 'results', 'mc-variance'))).toBe(path.join('results', 'mc-variance'));
  });
});
