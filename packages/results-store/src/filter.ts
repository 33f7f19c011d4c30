import { UserError } from '@rred/core';
import type { RunSummary } from './types';

/**
 * A tiny filter language over runs, evaluated in JavaScript against loaded runs (user text never
 * reaches SQL):
 *
 *   expr   := and ('or' and)*
 *   and    := atom ('and' atom)*
 *   atom   := '(' expr ')' | field op literal
 *   field  := params.<key> | metrics.<key> (last value) | tags.<key> |
 *             id | name | experiment | status | seed | attempts | config_hash | parent | start_time | end_time
 *   op     := = | != | < | <= | > | >=
 *   literal:= number (1e-4, -3, NaN, Infinity) | 'text' | "text"
 *
 * Against a number literal the field is compared as a number (a param '1e-3' equals 0.001); against a
 * text literal, as text. A field the run does not have makes the comparison false.
 */
export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type Filter =
  { kind: 'and' | 'or'; left: Filter; right: Filter } | { kind: 'cmp'; field: string; op: CompareOp; literal: number | string };

const RUN_FIELDS = ['id', 'name', 'experiment', 'status', 'seed', 'attempts', 'config_hash', 'parent', 'start_time', 'end_time'] as const;

type Token = { type: 'ident' | 'number' | 'string' | 'op' | '(' | ')'; text: string; value?: number | string; pos: number };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw new UserError(`malformed filter "${src}" at position ${i + 1}: ${msg}`);
  };
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push({ type: c, text: c, pos: i });
      i++;
      continue;
    }
    const op = /^(<=|>=|!=|==|=|<|>)/.exec(src.slice(i));
    if (op) {
      tokens.push({ type: 'op', text: op[1] === '==' ? '=' : op[1], pos: i });
      i += op[1].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) fail(`unterminated text starting with ${c}`);
      tokens.push({ type: 'string', text: src.slice(i, end + 1), value: src.slice(i + 1, end), pos: i });
      i = end + 1;
      continue;
    }
    const num = /^[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|Infinity|NaN)(?![\w.])/.exec(src.slice(i));
    if (num) {
      tokens.push({ type: 'number', text: num[0], value: Number(num[0]), pos: i });
      i += num[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][\w.\-/:]*/.exec(src.slice(i));
    if (ident) {
      tokens.push({ type: 'ident', text: ident[0], pos: i });
      i += ident[0].length;
      continue;
    }
    fail(`unexpected character '${c}'`);
  }
  return tokens;
}

/** Deepest parenthesis nesting a filter may have (far below the nesting that overflows the parser's stack, about 5000 levels). */
const MAX_NESTING = 100;

function balanced(kind: 'and' | 'or', terms: Filter[]): Filter {
  if (terms.length === 1) return terms[0];
  const mid = Math.ceil(terms.length / 2);
  return { kind, left: balanced(kind, terms.slice(0, mid)), right: balanced(kind, terms.slice(mid)) };
}

export function parseFilter(src: string): Filter {
  const tokens = tokenize(src);
  let k = 0;
  const fail = (msg: string): never => {
    const at = k < tokens.length ? `at position ${tokens[k].pos + 1} ('${tokens[k].text}')` : 'at the end';
    const shown = src.length > 80 ? `${src.slice(0, 77)}...` : src;
    throw new UserError(`malformed filter "${shown}" ${at}: ${msg}`);
  };
  const isWord = (w: string) => k < tokens.length && tokens[k].type === 'ident' && tokens[k].text.toLowerCase() === w;

  // `a and b and c ...` becomes a balanced tree (and/or are associative), so a long chain nests only
  // log2(length) deep and evaluateFilter's recursion stays shallow; parentheses are what nest.
  function parseOr(): Filter {
    const terms = [parseAnd()];
    while (isWord('or')) {
      k++;
      terms.push(parseAnd());
    }
    return balanced('or', terms);
  }
  function parseAnd(): Filter {
    const terms = [parseAtom()];
    while (isWord('and')) {
      k++;
      terms.push(parseAtom());
    }
    return balanced('and', terms);
  }
  let nesting = 0;
  function parseAtom(): Filter {
    const t = tokens[k];
    if (t === undefined) return fail('expected a comparison such as params.lr > 1e-4');
    if (t.type === '(') {
      if (++nesting > MAX_NESTING) fail(`parentheses nest more than ${MAX_NESTING} deep`);
      k++;
      const inner = parseOr();
      nesting--;
      if (tokens[k]?.type !== ')') fail("expected ')'");
      k++;
      return inner;
    }
    if (t.type !== 'ident') return fail('expected a field (params.X, metrics.X, tags.X or a run field)');
    checkField(t.text, fail);
    k++;
    const op = tokens[k];
    if (op?.type !== 'op') return fail(`expected an operator (= != < <= > >=) after '${t.text}'`);
    k++;
    const lit = tokens[k];
    if (lit?.type !== 'number' && lit?.type !== 'string') return fail(`expected a number or a quoted text after '${op.text}'`);
    k++;
    return { kind: 'cmp', field: t.text, op: op.text as CompareOp, literal: lit.value as number | string };
  }

  const filter = parseOr();
  if (k < tokens.length) fail("expected 'and', 'or' or the end of the filter");
  return filter;
}

function checkField(field: string, fail: (msg: string) => never): void {
  const dot = field.indexOf('.');
  if (dot > 0) {
    const scope = field.slice(0, dot);
    if (!['params', 'metrics', 'tags'].includes(scope)) fail(`unknown field scope '${scope}' (expected params., metrics. or tags.)`);
    if (dot === field.length - 1) fail(`'${field}' needs a key after the dot`);
    return;
  }
  if (!(RUN_FIELDS as readonly string[]).includes(field))
    fail(`unknown field '${field}' (expected params.X, metrics.X, tags.X or one of ${RUN_FIELDS.join(', ')})`);
}

function fieldValue(run: RunSummary, field: string): number | string | null | undefined {
  const dot = field.indexOf('.');
  if (dot > 0) {
    const key = field.slice(dot + 1);
    const scope = field.slice(0, dot);
    const bag: Record<string, number | string | null> = scope === 'params' ? run.params : scope === 'metrics' ? run.metrics : run.tags;
    return Object.prototype.hasOwnProperty.call(bag, key) ? bag[key] : undefined;
  }
  switch (field) {
    case 'id':
      return run.id;
    case 'name':
      return run.name;
    case 'experiment':
      return run.experiment;
    case 'status':
      return run.status;
    case 'seed':
      return run.seed;
    case 'attempts':
      return run.attempts;
    case 'config_hash':
      return run.configHash;
    case 'parent':
      return run.parentRunId;
    case 'start_time':
      return run.startTime;
    case 'end_time':
      return run.endTime;
    default:
      return undefined;
  }
}

function compare<T extends number | string>(a: T, op: CompareOp, b: T): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

export function evaluateFilter(f: Filter, run: RunSummary): boolean {
  if (f.kind !== 'cmp') {
    return f.kind === 'and'
      ? evaluateFilter(f.left, run) && evaluateFilter(f.right, run)
      : evaluateFilter(f.left, run) || evaluateFilter(f.right, run);
  }
  const v = fieldValue(run, f.field);
  if (v === undefined || v === null) return false;
  if (typeof f.literal === 'number') {
    const x = typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v);
    if (Number.isNaN(f.literal)) return f.op === '=' ? Number.isNaN(x) : f.op === '!=' ? !Number.isNaN(x) : false;
    return compare(x, f.op, f.literal);
  }
  return compare(String(v), f.op, f.literal);
}
