import * as path from 'path';
import { z } from 'zod';
import type { ConfigKeyDoc } from './command-line';
import { parseConfig } from './config';
import { UserError } from './errors';
import { readJsonFile } from './json-file';

/**
 * Every dotted path of a config schema (objects and their leaves) with the `.describe()` text and
 * the schema default, so a command's `--a.b value` overrides are checked (a typo fails with the list
 * of valid paths, before zod) and documented by `--help`. A discriminated union contributes the keys
 * of every option (zod checks the combination); records and other unions end the walk.
 */
export function configKeyDocs(schema: z.ZodTypeAny, prefix = ''): ConfigKeyDoc[] {
  const { inner, description, defaultValue } = unwrap(schema);
  const self = (object: boolean): ConfigKeyDoc[] =>
    prefix ? [{ path: prefix, description, default: defaultValue === undefined ? undefined : JSON.stringify(defaultValue), object }] : [];
  if (inner instanceof z.ZodDiscriminatedUnion) {
    const out = new Map<string, ConfigKeyDoc>(self(true).map((d) => [d.path, d]));
    const discriminator = prefix ? `${prefix}.${inner.discriminator}` : inner.discriminator;
    const values = [...inner.optionsMap.keys()].map((v) => JSON.stringify(v)).join(', ');
    out.set(discriminator, {
      path: discriminator,
      description: `Which variant: one of ${values}; the keys below belong to one variant or another.`,
    });
    for (const option of inner.options as z.ZodTypeAny[]) {
      for (const d of configKeyDocs(option, prefix)) if (!out.has(d.path)) out.set(d.path, d);
    }
    return [...out.values()];
  }
  if (!(inner instanceof z.ZodObject)) return self(false);
  const out = self(true);
  for (const [key, child] of Object.entries(inner.shape as Record<string, z.ZodTypeAny>)) {
    out.push(...configKeyDocs(child, prefix ? `${prefix}.${key}` : key));
  }
  return out;
}

function unwrap(schema: z.ZodTypeAny): { inner: z.ZodTypeAny; description?: string; defaultValue?: unknown } {
  let s = schema;
  let description: string | undefined;
  let defaultValue: unknown;
  for (;;) {
    description ??= s.description;
    if (s instanceof z.ZodDefault) {
      if (defaultValue === undefined) defaultValue = s._def.defaultValue();
      s = s._def.innerType;
    } else if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap();
    else if (s instanceof z.ZodEffects) s = s.innerType();
    else return { inner: s, description, defaultValue };
  }
}

/** Leaf values of a config object as dotted path → JSON text (the effective defaults for help). */
export function flattenConfig(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flattenConfig(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = JSON.stringify(value);
  return out;
}

/** Sets `path` (dotted) in a copy of `target`, creating objects on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(target);
  const keys = path.split('.');
  let cur: Record<string, unknown> = copy;
  keys.slice(0, -1).forEach((k) => {
    const next = cur[k];
    if (next === undefined) cur[k] = {};
    else if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      throw new UserError(`override ${path}: '${k}' is not an object in the config`);
    }
    cur = cur[k] as Record<string, unknown>;
  });
  cur[keys[keys.length - 1]] = value;
  return copy;
}

/** Applies `--a.b value` overrides (dotted path → value) to a copy of a config object, in order. */
export function applyOverrides(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  let out = base;
  for (const [key, value] of Object.entries(overrides)) out = setPath(out, key, value);
  return out;
}

/**
 * A command's config: the JSON object in `file` (none: {}, so the schema defaults apply), then the
 * command-line overrides, validated by `schema`. `source` names both for messages, e.g.
 * `experiments/configs/mc-variance.json + --seed, --problems`.
 */
export function loadCommandConfig<S extends z.ZodTypeAny>(
  schema: S,
  file: string | undefined,
  overrides: Record<string, unknown>,
  written: Record<string, string> = {},
): { config: z.infer<S>; source: string } {
  const raw = file === undefined ? {} : readJsonFile(file, 'config file');
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new UserError(`config file ${file}: expected a JSON object`);
  const keys = Object.keys(overrides);
  const shown = file === undefined ? 'defaults' : path.relative(process.cwd(), file) || file;
  const source = `${shown}${keys.length ? ` + --${keys.join(', --')}` : ''}`;
  const base = raw as Record<string, unknown>;
  const first = schema.safeParse(applyOverrides(base, overrides));
  if (first.success) return { config: first.data, source };
  const retried = asWrittenWhereText(first.error, overrides, written);
  return { config: parseConfig(schema, applyOverrides(base, retried), source, written), source };
}

/**
 * A flag value reads as JSON (`--seed 3` is a number), but where the schema wants a string the text as written is
 * meant: a run id of digits only (`--mcRun 274393194864`), or a name like `--tag true`. The overrides with those
 * values replaced by their text, given the issues of the config they failed.
 */
function asWrittenWhereText(
  error: z.ZodError,
  overrides: Record<string, unknown>,
  written: Record<string, string>,
): Record<string, unknown> {
  const text = error.issues
    .filter((i) => i.code === 'invalid_type' && i.expected === 'string' && (i.received === 'number' || i.received === 'boolean'))
    .map((i) => i.path.join('.'))
    .filter((p) => p in overrides && written[p] !== undefined);
  return text.length === 0 ? overrides : { ...overrides, ...Object.fromEntries(text.map((p) => [p, written[p]])) };
}
