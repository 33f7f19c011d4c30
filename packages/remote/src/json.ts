/**
 * JSON as Python's json module writes it: non-finite numbers are the bare literals NaN, Infinity and
 * -Infinity (SGLang and vLLM are Python servers; a log-probability of −∞ is a real value). Plain
 * JSON.stringify would turn them into null and JSON.parse rejects them, so both ends go through here.
 */
const MARK = '\u0000nonfinite:';

/** JSON text with NaN / ±Infinity written as Python's literals. */
export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? `${MARK}${v}` : v));
  return text.replace(/"\\u0000nonfinite:(NaN|Infinity|-Infinity)"/g, '$1');
}

/** Parses JSON that may hold Python's NaN / Infinity / -Infinity literals; throws SyntaxError otherwise. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
  }
  // Only literals in value position (after `:`, `,` or `[`), outside strings, are rewritten.
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      continue;
    }
    const literal = ['-Infinity', 'Infinity', 'NaN'].find((l) => text.startsWith(l, i));
    if (literal && /[:,[]\s*$/.test(out)) {
      out += JSON.stringify(`${MARK}${literal}`);
      i += literal.length - 1;
      continue;
    }
    out += c;
  }
  return JSON.parse(out, (_key, v: unknown) => (typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : v));
}
