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

/**
 * Parses JSON that may hold Python's NaN / Infinity / -Infinity literals; throws SyntaxError otherwise.
 * One pass over the text (linear: a body of many literals costs what its length costs): a literal in
 * value position (after `:`, `,` or `[`, outside strings) becomes a marked string, restored by the reviver.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
  }
  const parts: string[] = [];
  let from = 0; // text[from..i) is copied as is
  let inString = false;
  let last = ''; // the last character outside strings that is not whitespace
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      last = c;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
    const literal = c === 'N' || c === 'I' || c === '-' ? LITERALS.find((l) => text.startsWith(l, i)) : undefined;
    if (literal && (last === ':' || last === ',' || last === '[')) {
      parts.push(text.slice(from, i), JSON.stringify(`${MARK}${literal}`));
      i += literal.length - 1;
      from = i + 1;
      last = 'x';
      continue;
    }
    last = c;
  }
  parts.push(text.slice(from));
  return JSON.parse(parts.join(''), (_key, v: unknown) => (typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : v));
}

const LITERALS = ['-Infinity', 'Infinity', 'NaN'];

/** A value for a one-line message, as the server writes JSON (NaN and ±Infinity as themselves, not null), shortened to `max`. */
export function showValue(value: unknown, max = 60): string {
  if (value === undefined) return 'nothing';
  const text = stringifyJson(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
