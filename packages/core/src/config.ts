import { z } from 'zod';
import { UserError } from './errors';

/**
 * Validates a config against its zod schema before any compute starts. Schemas are declared with
 * `.strict()` so unknown keys are rejected; every issue is reported with its key path, the value
 * given and what was expected, e.g. `segmentation.k: got -3, expected a number >= 1`. A cross-field
 * check (a `superRefine` issue whose message does not start with "expected") names its values itself
 * and is reported at the object it checks, e.g. `grpo: epsilonHigh (0.1) must be ≥ epsilon (0.2)`.
 */
export function parseConfig<S extends z.ZodTypeAny>(schema: S, input: unknown, source: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => describeIssue(issue, input));
  throw new UserError(`invalid config (${source}):\n  ${lines.join('\n  ')}`);
}

function describeIssue(issue: z.ZodIssue, input: unknown): string {
  const path = issue.path.length ? issue.path.join('.') : '(root)';
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length ? `${path}.` : '';
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${where}${k}'`).join(', ')}: not an option here`;
  }
  if (issue.code === 'custom' && !issue.message.startsWith('expected')) return issue.path.length ? `${path}: ${issue.message}` : issue.message;
  const given = valueAt(input, issue.path);
  return `${path}: got ${formatValue(given)}, ${issue.message.replace(/^Expected/, 'expected')}`;
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

function formatValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

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
