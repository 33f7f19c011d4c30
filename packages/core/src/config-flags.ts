import { z } from 'zod';
import type { ConfigKeyDoc } from './command-line';
import { UserError } from './errors';

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
    out.set(discriminator, { path: discriminator, description: `Which variant: one of ${values}; the keys below belong to one variant or another.` });
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
