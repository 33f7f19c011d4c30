import { z } from 'zod';
import { UserError } from './errors';

/**
 * Validates a config against its zod schema before any compute starts. Schemas are declared with
 * `.strict()` so unknown keys are rejected. The error is one line: the source, then each issue as
 * its key path, the value as the user wrote it and what was expected in the project's words, e.g.
 * `invalid config (mc-variance.json + --seed): seed: got '4294967297', expected an integer seed in [0, 2^32) ...`.
 * `written` maps override paths to their command-line text (so 1e999 is not shown as Infinity).
 * A cross-field check (a `superRefine` issue whose message does not start with "expected") names its
 * values itself and is reported at the object it checks, e.g. `grpo: epsilonHigh (0.1) must be ≥ epsilon (0.2)`.
 */
export function parseConfig<S extends z.ZodTypeAny>(
  schema: S,
  input: unknown,
  source: string,
  written: Record<string, string> = {},
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => describeIssue(issue, input, written));
  throw new UserError(`invalid config (${source}): ${[...new Set(issues)].join('; ')}`);
}

function describeIssue(issue: z.ZodIssue, input: unknown, written: Record<string, string>): string {
  const path = issue.path.length ? issue.path.join('.') : '(root)';
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length ? `${path}.` : '';
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${where}${k}'`).join(', ')}: not an option here`;
  }
  if (issue.code === 'custom' && !issue.message.startsWith('expected'))
    return issue.path.length ? `${path}: ${issue.message}` : issue.message;
  // command-line text is shown quoted, exactly as typed (1e999 stays 1e999, '' stays visible)
  // (an issue below an override that a preprocess reshaped, e.g. 'a,b' → ['a','b'], shows that override's text)
  const value = valueAt(input, issue.path);
  const prefix = issue.path.map((_, i) => issue.path.slice(0, issue.path.length - i).join('.')).find((p) => p in written);
  const given = path in written || (value === undefined && prefix !== undefined) ? `'${written[prefix ?? path]}'` : formatValue(value);
  return `${path}: got ${given}, ${expectation(issue)}`;
}

/** What was expected, in the project's words (zod's own wording varies by version and reads as code). */
function expectation(issue: z.ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined') return `expected ${article(issue.expected)} (this key is required)`;
      return `expected ${article(issue.expected)}`;
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = small ? issue.minimum : issue.maximum;
      const op = issue.exact ? '=' : small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      if (issue.type === 'number' || issue.type === 'bigint') return `expected a number ${op} ${String(bound)}`;
      const unit = issue.type === 'string' ? 'characters' : 'items';
      const how = issue.exact ? 'exactly' : small ? 'at least' : 'at most';
      return `expected ${issue.type === 'string' ? 'text' : `${article(issue.type)}`} of ${how} ${String(bound)} ${unit}`;
    }
    case 'invalid_enum_value':
      return `expected one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}`;
    case 'invalid_literal':
      return `expected ${JSON.stringify(issue.expected)}`;
    case 'invalid_union_discriminator':
      return `expected one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}`;
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.multipleOf)}`;
    case 'not_finite':
      return 'expected a finite number';
    case 'invalid_string':
      return `expected ${typeof issue.validation === 'string' ? `a valid ${issue.validation}` : 'text in the required format'}`;
    case 'custom':
      return issue.message;
    default:
      return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  }
}

function article(type: string): string {
  const names: Record<string, string> = {
    integer: 'an integer',
    object: 'an object',
    array: 'an array',
    number: 'a number',
    string: 'a string',
    boolean: 'true or false',
  };
  return names[type] ?? `a ${type}`;
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

/** A value for a message: JSON, except what JSON cannot show (NaN, ±Infinity, undefined). */
function formatValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A random seed: an integer in [0, 2^32). Larger or negative seeds would alias (the generator keeps 32 bits). */
export const seedSchema = z.number().refine((n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32, {
  message: 'expected an integer seed in [0, 2^32) = [0, 4294967295]',
});

/** Stable JSON (sorted keys) for hashing configs: the same config always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
