import { parseWithFloats, stringifyWithFloats } from './json-floats';

describe('site JSON keeps every float', () => {
  it('round-trips NaN, ±Infinity and -0 anywhere in the value, ordinary values unchanged', () => {
    const value = { metrics: { a: NaN, b: Infinity, c: -Infinity, d: -0, e: 0.5, f: null }, list: [NaN, 1, -0], text: 'NaN' };
    const text = stringifyWithFloats(value);
    expect(text).toContain('{"$float":"NaN"}');
    const back = parseWithFloats<typeof value>(text);
    expect(back.metrics.a).toBeNaN();
    expect(back.metrics.b).toBe(Infinity);
    expect(back.metrics.c).toBe(-Infinity);
    expect(Object.is(back.metrics.d, -0)).toBe(true);
    expect(back.metrics.e).toBe(0.5);
    expect(back.metrics.f).toBeNull();
    expect(back.list[0]).toBeNaN();
    expect(Object.is(back.list[2], -0)).toBe(true);
    // A param whose text is 'NaN' stays text: only the marker object becomes a number.
    expect(back.text).toBe('NaN');
    expect(Object.is(parseWithFloats(stringifyWithFloats(0)), 0)).toBe(true);
  });

  it('an object that merely has a $float key among others is left alone', () => {
    expect(parseWithFloats('{"x":{"$float":"NaN","y":1},"z":{"$float":"oops"}}')).toEqual({
      x: { $float: 'NaN', y: 1 },
      z: { $float: 'oops' },
    });
  });
});
