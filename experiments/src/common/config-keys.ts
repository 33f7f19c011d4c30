import { z } from 'zod';

/**
 * Every dotted path of an object schema (objects and their leaves), for validating `--key value`
 * overrides before zod does. Unions and records end the walk: their inner keys vary.
 */
export function configKeys(schema: z.ZodTypeAny, prefix = ''): string[] {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodDiscriminatedUnion) {
    // e.g. the segmentation config: any key of any strategy may be overridden; zod checks the combination
    const options = [...(inner.options as z.ZodTypeAny[])];
    const keys = new Set<string>(prefix ? [prefix] : []);
    for (const option of options) for (const k of configKeys(option, prefix)) keys.add(k);
    return [...keys];
  }
  if (!(inner instanceof z.ZodObject)) return prefix ? [prefix] : [];
  const out: string[] = prefix ? [prefix] : [];
  for (const [key, child] of Object.entries(inner.shape as Record<string, z.ZodTypeAny>)) {
    out.push(...configKeys(child, prefix ? `${prefix}.${key}` : key));
  }
  return out;
}

function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault) s = s._def.innerType;
    else if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap();
    else if (s instanceof z.ZodEffects) s = s.innerType();
    else return s;
  }
}
