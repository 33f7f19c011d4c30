/**
 * Writing a render over files already there (results/<experiment>/ above all): a render is made in a
 * private staging directory and compared with what outDir holds. When its numbers equal the files' (at the
 * tolerance below), outDir is left untouched, so re-running a committed experiment leaves `git status`
 * clean and the committed provenance keeps naming the run the files came from; otherwise every file is
 * written and what changed is listed.
 *
 * Equal means: the same text apart from provenance (markdown's `## Provenance` block, CSV `# run` lines) and
 * the run ids either side names, and every number within |a − b| ≤ ATOL + RTOL·max(|a|, |b|), or, for two
 * numbers printed with the same d ≥ 1 decimals, within one unit of the last digit (a rounding flip of a
 * value that moved by float noise). A plot's .svg and .png are functions of its .vl.json and follow it.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Absolute and relative tolerance of a number (float32 sums across BLAS kernel families move by ~3e-6). */
const ATOL = 1e-5;
const RTOL = 1e-5;

interface PublishOutcome {
  /** 'exact': every number as before; 'tolerance': some moved within the tolerance; 'written': outDir was (re)written. */
  kind: 'exact' | 'tolerance' | 'written';
  /** The files of the render, in outDir. */
  files: string[];
  /** 'written': one line per changed or new file; 'tolerance': the largest difference. */
  notes: string[];
}

const NUMBER = /-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/g;
const RUN_ID = /\b(?:run|sweep) ([0-9a-f]{12})\b/g;

/** The run ids a file names (`run <id>` or `sweep <id>`: its provenance, a plot's subtitle). */
function runIdsIn(text: string): string[] {
  return [...text.matchAll(RUN_ID)].map((m) => m[1]);
}

/** The text a file is compared by: without provenance, run ids masked. */
function comparable(text: string, runIds: ReadonlySet<string>): string {
  const start = text.indexOf('\n## Provenance\n');
  const body = (start >= 0 ? text.slice(0, start) : text)
    .split('\n')
    .filter((l) => !l.startsWith('# run '))
    .join('\n');
  return body.replace(/\b[0-9a-f]{12}\b/g, (id) => (runIds.has(id) ? '<run>' : id));
}

const decimals = (s: string) => (/[eE]/.test(s) || !s.includes('.') ? 0 : s.length - s.indexOf('.') - 1);

/** null when `a` and `b` differ in text or beyond the tolerance; else the largest number difference. */
function numericDiff(a: string, b: string): { maxAbs: number; where: string; flips: number } | null {
  const textA = a.split(NUMBER);
  const textB = b.split(NUMBER);
  if (textA.length !== textB.length || textA.some((t, i) => t !== textB[i])) return null;
  const numsA = a.match(NUMBER) ?? [];
  const numsB = b.match(NUMBER) ?? [];
  let best = { maxAbs: 0, where: '', flips: 0 };
  for (let i = 0; i < numsA.length; i++) {
    if (numsA[i] === numsB[i]) continue;
    const [x, y] = [Number(numsA[i]), Number(numsB[i])];
    const d = Math.abs(x - y);
    const digits = decimals(numsA[i]);
    const flip = digits >= 1 && digits === decimals(numsB[i]) && d <= 10 ** -digits * (1 + 1e-9);
    const within = d <= ATOL + RTOL * Math.max(Math.abs(x), Math.abs(y));
    if (!within && !flip) return null;
    if (!within) best.flips++;
    else if (d > best.maxAbs) best = { ...best, maxAbs: d, where: `${numsA[i]} → ${numsB[i]}` };
  }
  return best;
}

/** First differing line of two texts, for the change report. */
function firstChange(a: string, b: string): string {
  const [la, lb] = [a.split('\n'), b.split('\n')];
  const i = la.findIndex((l, k) => l !== lb[k]);
  const clip = (s: string | undefined) => (s === undefined ? '(none)' : s.length > 100 ? `${s.slice(0, 100)}…` : s);
  return i < 0 ? `${la.length} vs ${lb.length} lines` : `line ${i + 1}: '${clip(la[i])}' → '${clip(lb[i])}'`;
}

const TEXT = /\.(md|csv|json|txt)$/;

/**
 * Renders into a staging directory with `render(dir)` (which returns the files it wrote), then leaves
 * outDir untouched when the render reproduces it, else writes every file into outDir.
 */
export async function publishRender(
  outDir: string,
  render: (dir: string) => Promise<string[]>,
  /** Write even a reproducing render, saying why (e.g. the runs the files name are not exported). */
  force: string | null = null,
): Promise<PublishOutcome> {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-render-'));
  try {
    const staged = (await render(staging)).map((f) => path.relative(staging, f));
    const texts = staged.filter((f) => TEXT.test(f));
    const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
    const exists = (f: string) => fs.existsSync(path.join(outDir, f));
    const ids = new Set<string>();
    for (const f of texts) for (const id of [...runIdsIn(read(staging, f)), ...(exists(f) ? runIdsIn(read(outDir, f)) : [])]) ids.add(id);
    const notes: string[] = [];
    let exact = true;
    let largest = { maxAbs: 0, where: '', file: '' };
    let flips = 0;
    const same = new Set<string>();
    for (const f of texts) {
      if (!exists(f)) {
        notes.push(`new: ${f}`);
        continue;
      }
      const [was, now] = [comparable(read(outDir, f), ids), comparable(read(staging, f), ids)];
      if (was === now) {
        same.add(f);
        continue;
      }
      const diff = numericDiff(was, now);
      if (diff === null) {
        notes.push(`changed: ${f}, ${firstChange(was, now)}`);
        continue;
      }
      same.add(f);
      exact = false;
      flips += diff.flips;
      if (diff.maxAbs > largest.maxAbs) largest = { maxAbs: diff.maxAbs, where: diff.where, file: f };
    }
    for (const f of staged.filter((x) => !TEXT.test(x))) {
      const spec = f.replace(/\.(svg|png)$/, '.vl.json');
      if (!exists(f)) notes.push(`new: ${f}`);
      else if (spec !== f && staged.includes(spec)) {
        if (!same.has(spec)) notes.push(`changed: ${f} (its ${path.basename(spec)} changed)`);
      } else if (!fs.readFileSync(path.join(outDir, f)).equals(fs.readFileSync(path.join(staging, f)))) notes.push(`changed: ${f}`);
    }
    const files = staged.map((f) => path.join(outDir, f));
    if (force !== null && notes.length === 0) notes.push(force);
    if (notes.length === 0) {
      const tol = exact
        ? []
        : [
            ...(largest.file ? [`largest difference ${largest.maxAbs.toPrecision(2)} (${largest.where}) in ${largest.file}`] : []),
            ...(flips ? [`${flips} printed value(s) rounded the other way`] : []),
          ];
      return { kind: exact ? 'exact' : 'tolerance', files, notes: tol };
    }
    for (const f of staged) {
      fs.mkdirSync(path.dirname(path.join(outDir, f)), { recursive: true });
      fs.copyFileSync(path.join(staging, f), path.join(outDir, f));
    }
    return { kind: 'written', files, notes };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The outcome in words, e.g. "reproduced results/mc-variance exactly (9 files; OpenBLAS SkylakeX, 2 thread(s))";
 * `where` is outDir as the user should read it, `blas` the kernels that computed it (null: none or not computed here).
 */
export function describeOutcome(o: PublishOutcome, where: string, blas: string | null): string {
  const on = blas ? `; computed with ${blas}` : '';
  const n = `${o.files.length} file${o.files.length === 1 ? '' : 's'}`;
  if (o.kind === 'exact') return `reproduced ${where} exactly (${n}${on})`;
  if (o.kind === 'tolerance')
    return `reproduced ${where} within tolerance |Δ| ≤ ${ATOL} + ${RTOL}·|x| or one unit of a printed last digit (${n}${on}; ${o.notes.join('; ')}); files left as they were`;
  return `wrote ${where} (${n}${on}); what changed:\n${o.notes.map((l) => `  ${l}`).join('\n')}`;
}

/** A path as a message shows it: relative to the working directory when inside it, else absolute as given. */
export function displayPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? path.resolve(p) : rel;
}
