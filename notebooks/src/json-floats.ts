/**
 * JSON for the site's data files that keeps every float: JSON has no NaN, ±Infinity or -0, and the
 * store does (metrics may be NaN; see @rred/results-store floats.ts). Such a number is written as
 * `{"$float":"NaN"}` (or "Infinity", "-Infinity", "-0") and read back as the number, so the browser
 * evaluates filters and shows values exactly as `rred runs list` does. Used by the build (node) and
 * by the pages (browser).
 */
const SPECIAL = new Set(['NaN', 'Infinity', '-Infinity', '-0']);

export function stringifyWithFloats(value: unknown): string {
  return JSON.stringify(value, function replacer(this: unknown, key: string, v: unknown) {
    // JSON.stringify turns -0 into 0 before the replacer sees it, so read the raw value from the holder.
    const raw = key === '' ? v : (this as Record<string, unknown>)[key];
    if (typeof raw === 'number' && (!Number.isFinite(raw) || Object.is(raw, -0)))
      return { $float: Object.is(raw, -0) ? '-0' : String(raw) };
    return v;
  });
}

export function parseWithFloats<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const f = (v as { $float?: unknown }).$float;
      if (keys.length === 1 && typeof f === 'string' && SPECIAL.has(f)) return f === '-0' ? -0 : Number(f);
    }
    return v;
  }) as T;
}
