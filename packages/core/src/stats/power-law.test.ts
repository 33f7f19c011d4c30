import { powerLawExponent } from './power-law';

describe('powerLawExponent', () => {
  it('recovers the exponent of an exact power law and of a noisy one', () => {
    const xs = [64, 128, 256, 512, 1024];
    expect(
      powerLawExponent(
        xs,
        xs.map((x) => 3 * x ** 1.5),
      ),
    ).toBeCloseTo(1.5, 10);
    expect(
      powerLawExponent(
        xs,
        xs.map((x) => 0.2 * x),
      ),
    ).toBeCloseTo(1, 10);
    // a constant offset bends the log-log line: the fitted exponent of 100 + x is below 1
    expect(
      powerLawExponent(
        xs,
        xs.map((x) => 100 + x),
      ),
    ).toBeLessThan(0.9);
  });

  it('follows the stats conventions: too few points or a NaN → NaN; non-positive values and unequal lengths throw', () => {
    expect(powerLawExponent([1], [2])).toBeNaN();
    expect(powerLawExponent([1, 2], [NaN, 3])).toBeNaN();
    expect(powerLawExponent([2, 2], [1, 3])).toBeNaN();
    expect(() => powerLawExponent([1, 2], [0, 3])).toThrow(RangeError);
    expect(() => powerLawExponent([1, 2], [1])).toThrow(RangeError);
  });
});
