/**
 * Flattens nested objects into dotted keys with text values, the way params are stored and compared:
 * `{ seg: { k: 8 }, tags: ['a'] }` → `{ 'seg.k': '8', tags: '["a"]' }`. Strings stay unquoted;
 * numbers keep NaN/Infinity/-0 spelled out; arrays stay whole (as JSON) because their elements are
 * rarely compared one by one.
 */
export function flatten(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out[prefix] = '{}';
    for (const [k, v] of entries) {
      if (v === undefined) continue;
      flatten(v, prefix ? `${prefix}.${k}` : k, out);
    }
    return out;
  }
  if (!prefix) throw new TypeError('flatten: expected an object at the top level');
  out[prefix] = paramText(value);
  return out;
}

export function paramText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === undefined) return 'undefined';
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
}
