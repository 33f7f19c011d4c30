import { z } from 'zod';
import type { ConfigKeyDoc } from './command-line';

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
