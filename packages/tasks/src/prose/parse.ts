import { OPERATORS, type Operator } from '../config';
import { CORRECTION_PREFIXES, REFERENCE_TEMPLATE, RESTATE_TEMPLATES, STEP_TEMPLATES, lowerFirstWord } from './templates';

/**
 * Reads one line of a prose solution back into what it says, by the bed's own templates (the generator
 * wrote them, so the oracle may read them; an estimator with `alignment: 'none'` never does):
 * - a step line (`Adding 3 to 4 gives a = 7.`), possibly after a correction opening (`Wait, no: ...`);
 * - a restatement (`We still need e, which uses d.`), which assigns nothing;
 * - a reference line (`Step 2. b = 7 + 8 = 5.`).
 * Anything else is null (malformed for the step oracle). A template whose placeholder occurs twice
 * (`{x} = {l} + {r}, so {x} is {v}.`) must repeat the same text there.
 */
type ProseLine =
  | {
      kind: 'step';
      op: Operator;
      /** Index in STEP_TEMPLATES[op]. */
      template: number;
      /** Index in CORRECTION_PREFIXES, or null for a plain step line. */
      correction: number | null;
      variable: string;
      left: number;
      right: number;
      value: number;
    }
  | { kind: 'restate'; template: number; variable: string }
  | { kind: 'reference'; step: number; op: Operator; variable: string; left: number; right: number; value: number };

const PLACEHOLDER: Record<string, string> = {
  x: '([a-z])',
  l: '(\\d+)',
  r: '(\\d+)',
  v: '(\\d+)',
  k: '(\\d+)',
  op: '([+\\-*])',
  deps: '([a-z](?:, [a-z])*(?: and [a-z])?)',
};

interface Compiled {
  re: RegExp;
  /** Placeholder name of each capture group, in order. */
  names: string[];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A template as a regex source (anchored by the caller) and its placeholder names. */
function templateSource(template: string): { source: string; names: string[] } {
  const names: string[] = [];
  const source = template
    .split(/(\{[a-z]+\})/)
    .map((part) => {
      const m = /^\{([a-z]+)\}$/.exec(part);
      if (!m) return escape(part);
      names.push(m[1]);
      return PLACEHOLDER[m[1]];
    })
    .join('');
  return { source, names };
}

function compile(template: string): Compiled {
  const { source, names } = templateSource(template);
  return { re: new RegExp(`^${source}$`), names };
}

/** The placeholder values of `text` under `c`, or null when it does not match or a repeated placeholder differs. */
function match(c: Compiled, text: string): Record<string, string> | null {
  const m = c.re.exec(text);
  if (!m) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < c.names.length; i++) {
    const name = c.names[i];
    if (out[name] !== undefined && out[name] !== m[i + 1]) return null;
    out[name] = m[i + 1];
  }
  return out;
}

const STEPS = OPERATORS.flatMap((op) =>
  STEP_TEMPLATES[op].map((t, template) => ({ op, template, plain: compile(t), lower: compile(lowerFirstWord(t)) })),
);
const RESTATES = RESTATE_TEMPLATES.map(compile);
const PREFIXES = CORRECTION_PREFIXES.map((p) => {
  const { source, names } = templateSource(p);
  return { re: new RegExp(`^${source}`), names };
});
const REFERENCE = compile(REFERENCE_TEMPLATE);

function stepOf(text: string, lower: boolean): Omit<Extract<ProseLine, { kind: 'step' }>, 'correction'> | null {
  for (const s of STEPS) {
    const v = match(lower ? s.lower : s.plain, text);
    if (v)
      return { kind: 'step', op: s.op, template: s.template, variable: v.x, left: Number(v.l), right: Number(v.r), value: Number(v.v) };
  }
  return null;
}

/** What one line of a prose solution says, or null when it is in none of the bed's templates. */
export function parseProseLine(line: string): ProseLine | null {
  const plain = stepOf(line, false);
  if (plain) return { ...plain, correction: null };
  for (let i = 0; i < RESTATES.length; i++) {
    const v = match(RESTATES[i], line);
    if (v) return { kind: 'restate', template: i, variable: v.x };
  }
  const ref = match(REFERENCE, line);
  if (ref) {
    const [k, x, l, op, r, v] = ['k', 'x', 'l', 'op', 'r', 'v'].map((n) => ref[n]);
    return { kind: 'reference', step: Number(k), op: op as Operator, variable: x, left: Number(l), right: Number(r), value: Number(v) };
  }
  // the longest opening first: `Wait, no: ` before `Wait, `
  const prefixes = PREFIXES.map((p, i) => ({ ...p, i })).sort((a, b) => b.re.source.length - a.re.source.length);
  for (const p of prefixes) {
    const m = p.re.exec(line);
    if (!m) continue;
    const step = stepOf(line.slice(m[0].length), true);
    if (step && p.names.every((n, g) => n !== 'x' || m[g + 1] === step.variable)) return { ...step, correction: p.i };
  }
  return null;
}
