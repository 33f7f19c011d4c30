import { blobToFloats, decodeFloat, encodeFloat, floatsToBlob, formatFloat } from './floats';

describe('float encoding', () => {
  it('round-trips NaN, ±Infinity, -0, ordinary numbers and null', () => {
    for (const x of [NaN, Infinity, -Infinity, -0, 0, 1.5, -2.25e-300, Number.MAX_VALUE, Number.MIN_VALUE]) {
      const e = encodeFloat(x);
      expect(Object.is(decodeFloat(e.value, e.special), x)).toBe(true);
    }
    expect(decodeFloat(encodeFloat(null).value, encodeFloat(null).special)).toBeNull();
  });

  it('keeps ordinary numbers in the REAL column so SQL aggregates still see them', () => {
    expect(encodeFloat(2.5)).toEqual({ value: 2.5, special: null });
    expect(encodeFloat(NaN)).toEqual({ value: null, special: 'NaN' });
    expect(encodeFloat(-0)).toEqual({ value: 0, special: '-0' });
  });

  it('rejects an unknown special marker instead of guessing', () => {
    expect(() => decodeFloat(null, 'nan?')).toThrow(/unknown special/);
  });

  it('stores float arrays bit-exactly in blobs', () => {
    const xs = [NaN, -Infinity, -0, 0.1, 1e-310];
    const back = blobToFloats(floatsToBlob(xs)) as number[];
    expect(back).toHaveLength(xs.length);
    xs.forEach((x, i) => expect(Object.is(back[i], x)).toBe(true));
    expect(() => blobToFloats(Buffer.alloc(7))).toThrow(/multiple of 8/);
  });

  it('formats -0 with its sign', () => {
    expect(formatFloat(-0)).toBe('-0');
    expect(formatFloat(NaN)).toBe('NaN');
    expect(formatFloat(null)).toBe('');
  });
});
