/**
 * Statistics live in one module, packages/core/src/stats (simple-statistics and jstat behind one
 * NaN/empty convention). This scans every non-test source file for the shapes a hand-written copy
 * takes: a sum divided by a count, or a function named like one of the module's functions (a tensor
 * variable called `mean` is fine).
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..');
const STATS = path.join(ROOT, 'packages', 'core', 'src', 'stats');
const SKIP = new Set(['node_modules', 'dist', 'build', '.nx', 'results', 'data', 'checkpoints']);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) || p === STATS ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** A mean by hand: `xs.reduce((a, b) => a + b, 0) / n`, or a local mean/median/correlation/t-quantile. */
const HAND_WRITTEN = [
  /reduce\(\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*=>\s*\1\s*\+\s*\2\s*,\s*0\s*\)\s*\/(?!\/)/,
  /\bfunction\s+(mean|median|pearson|spearman|studentTQuantile|studentTCdf|tQuantile|rankCorrelation)\b/,
  /\b(const|let)\s+(mean|median|pearson|spearman|studentTQuantile|studentTCdf|tQuantile|rankCorrelation)\s*=\s*(\(|function\b|\w+\s*=>)/,
];

function offenders(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (HAND_WRITTEN.some((re) => re.test(line)) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('one stats module', () => {
  it('finds no hand-written mean, median, correlation or t quantile outside packages/core/src/stats', () => {
    const files = ['packages', 'experiments', 'notebooks', 'test'].flatMap((d) => sources(path.join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    expect(offenders(files)).toEqual([]);
  });

  it('recognizes the shapes it forbids (so the scan above can fail)', () => {
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'stats-scan-'));
    const f = path.join(dir, 'x.ts');
    fs.writeFileSync(
      f,
      'const m = xs.reduce((a, b) => a + b, 0) / xs.length;\nfunction median(xs: number[]) {}\nconst mean = (xs: number[]) => 0;\nconst t = tf.mean(x);\nconst total = xs.reduce((a, b) => a + b, 0);\n',
    );
    expect(offenders([f]).map((o) => o.split(': ')[0].split(':').pop())).toEqual(['1', '2', '3']);
  });
});
