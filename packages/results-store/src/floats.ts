/**
 * Faithful storage of IEEE doubles in SQLite. SQLite turns NaN into NULL and does not keep the sign
 * of zero, so every float column is a pair: `<col>` REAL holds the value when it is an ordinary
 * number, and `<col>_special` TEXT holds 'NaN', 'Infinity', '-Infinity' or '-0' otherwise (then
 * `<col>` is NULL, or 0 for -0, so SQL aggregates over ordinary numbers still work). A missing
 * value (null) is NULL in both columns.
 */
type SpecialFloat = 'NaN' | 'Infinity' | '-Infinity' | '-0';

interface EncodedFloat {
  value: number | null;
  special: SpecialFloat | null;
}

export function encodeFloat(x: number | null | undefined): EncodedFloat {
  if (x === null || x === undefined) return { value: null, special: null };
  if (typeof x !== 'number') throw new TypeError(`encodeFloat: expected a number, got ${typeof x}`);
  if (Number.isNaN(x)) return { value: null, special: 'NaN' };
  if (x === Infinity) return { value: null, special: 'Infinity' };
  if (x === -Infinity) return { value: null, special: '-Infinity' };
  if (Object.is(x, -0)) return { value: 0, special: '-0' };
  return { value: x, special: null };
}

export function decodeFloat(value: number | bigint | null, special: string | null): number | null {
  switch (special) {
    case null:
      return value === null ? null : Number(value);
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    case '-0':
      return -0;
    default:
      throw new Error(`corrupt float encoding: unknown special value '${special}'`);
  }
}

/** Text form used by CSV/JSON exports and the CLI: NaN, Infinity, -Infinity, -0 spelled out. */
export function formatFloat(x: number | null): string {
  if (x === null) return '';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

/** Float arrays (logprobs, entropies) as little-endian float64 blobs: bit-exact, NaN and -0 included. */
export function floatsToBlob(xs: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(xs.length * 8);
  for (let i = 0; i < xs.length; i++) out.writeDoubleLE(xs[i], i * 8);
  return out;
}

export function blobToFloats(blob: Buffer | null): number[] | null {
  if (blob === null) return null;
  if (blob.length % 8 !== 0) throw new Error(`corrupt float blob: ${blob.length} bytes is not a multiple of 8`);
  const out = new Array<number>(blob.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = blob.readDoubleLE(i * 8);
  return out;
}
