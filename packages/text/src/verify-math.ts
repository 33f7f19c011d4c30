import type { MathJsInstance, MathNode } from 'mathjs';
import { boxedContents } from './boxed';

let instance: MathJsInstance | undefined;
/**
 * The mathjs instance, made at the first verification: loading mathjs and creating it takes ~0.7 s of CPU,
 * which every command importing this package (each experiment, also for --help) would pay at startup.
 */
function mathjs(): MathJsInstance {
  if (!instance) {
    const { all, create } = require('mathjs') as typeof import('mathjs');
    instance = create(all, { number: 'number' });
  }
  return instance;
}

/** How two answers were found equal (or 'none': they were not). */
type Match = 'numeric' | 'symbolic' | 'list' | 'text' | 'none';

interface MathVerdict {
  /** ζ: 1 when the answer equals the expected one, else 0. */
  reward: number;
  /** The answer read from the completion (the last \boxed{}, or all of them as a list, or the text), normalized; null when empty. */
  answer: string | null;
  match: Match;
}

/** Relative tolerance of numeric equality: |a − b| ≤ 1e-6 · max(1, |b|). */
const TOLERANCE = 1e-6;

/** Reads `\frac`, `\sqrt` and friends as a mathjs expression (leaves what it does not know). */
function latexToExpression(s: string): string {
  // innermost groups first (no braces inside), repeated until nothing changes, so \frac{\sqrt{3}}{2} resolves
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/, (m) => `((${m[1]})/(${m[2]}))`],
    [/\\sqrt\s*\[([^\]]*)\]\s*\{([^{}]*)\}/, (m) => `nthRoot(${m[2]}, ${m[1]})`],
    [/\\sqrt\s*\{([^{}]*)\}/, (m) => `sqrt(${m[1]})`],
  ];
  let out = s;
  for (let changed = true; changed;) {
    changed = false;
    for (const [re, to] of rules) {
      const m = re.exec(out);
      if (m) {
        out = out.replace(m[0], to(m));
        changed = true;
      }
    }
  }
  out = out.replace(/\\[dt]?frac\s*(\d)\s*(\d)/g, '(($1)/($2))').replace(/\\sqrt\s*(\d+|[a-zA-Z])/g, 'sqrt($1)');
  return out
    .replace(/\\(cdot|times)/g, '*')
    .replace(/\\div/g, '/')
    .replace(/\\pi/g, 'pi')
    .replace(/\\infty/g, 'Infinity')
    .replace(/\\ln/g, 'log')
    .replace(/\^\s*\{([^{}]*)\}/g, '^($1)')
    .replace(/[{]/g, '(')
    .replace(/[}]/g, ')');
}

/** Unwraps `\text{…}`-like groups (their contents stay). */
function unwrapText(s: string): string {
  const re = /\\(?:text|textbf|textit|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}/;
  let out = s;
  for (let m = re.exec(out); m; m = re.exec(out)) out = out.replace(m[0], m[1]);
  return out;
}

/**
 * An answer's surface normalized: math delimiters, spacing commands, \left / \right, degrees, dollar signs
 * and a final period removed; \text{} unwrapped and a trailing unit word after a number dropped; a
 * thousands-separated integer joined (1,000 → 1000); `x = 3` read as 3. Percent is kept as a trailing `%`.
 */
export function normalizeAnswer(raw: string): string {
  let s = raw.trim();
  s = s
    .replace(/^\$+|\$+$/g, '')
    .replace(/^\\\(|\\\)$/g, '')
    .replace(/^\\\[|\\\]$/g, '');
  s = s.replace(/\\left|\\right|\\[!,;:]|\\ |~/g, ' ');
  s = s.replace(/\^\s*\{?\\circ\}?|°|\\circ|\\degree/g, '');
  s = s.replace(/\\\$|\$/g, '');
  s = s.replace(/\\%/g, '%');
  s = unwrapText(s);
  s = s.replace(/\s+/g, ' ').trim().replace(/\.$/, '').trim();
  const eq = /^[a-zA-Z]\s*=\s*(.+)$/.exec(s);
  if (eq) s = eq[1].trim();
  const unit = /^([-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+))\s*(%?)\s*[a-zA-Z]{2,}[a-zA-Z\s^\d]*$/.exec(s);
  if (unit) s = `${unit[1]}${unit[2]}`;
  if (/^[-+]?\d{1,3}(,\d{3})+(\.\d+)?%?$/.test(s)) s = s.replace(/,/g, '');
  return s;
}

/** Splits at top-level commas (not inside (), [], {}). */
function topLevelItems(s: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      items.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(s.slice(start).trim());
  return items;
}

const CONSTANTS = new Set(['pi', 'e', 'i', 'Infinity', 'sqrt', 'nthRoot', 'log']);

/** A parsed expression and its free variables, or null when mathjs cannot read it. */
function parse(s: string): { node: MathNode; symbols: string[] } | null {
  const expression = latexToExpression(s);
  // a word (2+ letters) that is no function or constant is text, not a product of one-letter variables
  if ((expression.match(/[a-zA-Z]{2,}/g) ?? []).some((w) => !CONSTANTS.has(w))) return null;
  try {
    const node = mathjs().parse(expression);
    const symbols = [
      ...new Set(
        node.filter((n) => (n as { isSymbolNode?: boolean }).isSymbolNode === true).map((n) => (n as unknown as { name: string }).name),
      ),
    ].filter((n) => !CONSTANTS.has(n));
    return { node, symbols };
  } catch {
    return null;
  }
}

function close(a: number, b: number): boolean {
  return Number.isFinite(a) && Number.isFinite(b) ? Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(b)) : a === b;
}

function evaluate(node: MathNode, scope: Record<string, number> = {}): number | null {
  try {
    const v = node.evaluate(scope) as unknown;
    return typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** Equality of two single answers: numeric (percent: p% equals p and p/100), symbolic (3 sample points), else text. */
function sameItem(a: string, b: string): Match {
  const pa = a.endsWith('%');
  const pb = b.endsWith('%');
  const [ea, eb] = [parse(pa ? a.slice(0, -1) : a), parse(pb ? b.slice(0, -1) : b)];
  if (ea && eb) {
    if (ea.symbols.length === 0 && eb.symbols.length === 0) {
      const [va, vb] = [evaluate(ea.node), evaluate(eb.node)];
      if (va !== null && vb !== null) {
        if (close(va, vb)) return 'numeric';
        if (pa !== pb && (close(pa ? va / 100 : va, pb ? vb / 100 : vb) || close(va, vb))) return 'numeric';
        return 'none';
      }
    } else if ([...ea.symbols].sort().join() === [...eb.symbols].sort().join()) {
      const points = [0.37, 1.61, -2.3].map((x, k) => Object.fromEntries(ea.symbols.map((s, j) => [s, x + 0.53 * j + 0.11 * k])));
      const same = points.every((scope) => {
        const [va, vb] = [evaluate(ea.node, scope), evaluate(eb.node, scope)];
        return va !== null && vb !== null && close(va, vb);
      });
      if (same) return 'symbolic';
    }
  }
  const text = (s: string) =>
    s
      .toLowerCase()
      .replace(/\s+/g, '')
      .replace(/^\((.*)\)$/, '$1');
  return text(a) === text(b) ? 'text' : 'none';
}

/** Equality of two normalized answers: a comma list compares item by item (in order inside brackets, as sets otherwise). */
function same(a: string, b: string): Match {
  const single = sameItem(a, b);
  if (single !== 'none') return single;
  const bracket = (s: string) => /^[([].*[)\]]$/.test(s);
  const inner = (s: string) => (bracket(s) ? s.slice(1, -1) : s);
  const [la, lb] = [topLevelItems(inner(a)), topLevelItems(inner(b))];
  if (la.length < 2 || la.length !== lb.length) return 'none';
  if (bracket(a) || bracket(b)) {
    if (bracket(a) !== bracket(b) || a[0] !== b[0] || a[a.length - 1] !== b[b.length - 1]) return 'none';
    return la.every((x, i) => sameItem(normalizeAnswer(x), normalizeAnswer(lb[i])) !== 'none') ? 'list' : 'none';
  }
  const left = [...lb];
  for (const x of la) {
    const k = left.findIndex((y) => sameItem(normalizeAnswer(x), normalizeAnswer(y)) !== 'none');
    if (k < 0) return 'none';
    left.splice(k, 1);
  }
  return 'list';
}

/**
 * Verifies a math answer against the expected one. The completion's answer is its last \boxed{} (several
 * boxes: all of them, as a list), else its whole text; both sides go through `normalizeAnswer`, then
 * compare numerically (fractions, roots, π, decimals, percentages), symbolically (expressions in
 * variables, at 3 fixed points), as lists, or as text.
 */
export function verifyMath(completion: string, expected: string): MathVerdict {
  const boxes = boxedContents(completion);
  const raw = boxes.length === 0 ? completion : boxes.length === 1 ? boxes[0] : boxes.join(', ');
  const answer = normalizeAnswer(raw);
  if (answer === '') return { reward: 0, answer: null, match: 'none' };
  const expectedBoxes = boxedContents(expected);
  const want = normalizeAnswer(expectedBoxes.length > 0 ? expectedBoxes.join(', ') : expected);
  const match = same(answer, want);
  return { reward: match === 'none' ? 0 : 1, answer, match };
}
