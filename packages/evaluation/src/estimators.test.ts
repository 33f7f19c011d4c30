import { avgAtK, majAtK, passAtK } from './estimators';

describe('passAtK', () => {
  it('matches 1 − C(n−c,k)/C(n,k) computed by hand', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12); // C(3,2)=3, C(5,2)=10
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(8, 1, 4)).toBeCloseTo(1 - 35 / 70, 12); // C(7,4)=35, C(8,4)=70
    expect(passAtK(20, 5, 10)).toBeCloseTo(1 - 3003 / 184756, 12); // C(15,10)=3003, C(20,10)=184756
  });

  it('handles the edges', () => {
    expect(passAtK(4, 0, 1)).toBe(0);
    expect(passAtK(4, 4, 4)).toBe(1);
    expect(passAtK(4, 1, 4)).toBe(1); // n − c < k: some correct sample always drawn
    expect(() => passAtK(3, 1, 4)).toThrow(/at least k = 4/);
    expect(() => passAtK(3, 4, 1)).toThrow(/0\.\.3/);
  });
});

describe('avgAtK', () => {
  it('is the mean of the first k rewards', () => {
    expect(avgAtK([1, 0, 1, 1], 4)).toBe(0.75);
    expect(avgAtK([1, 0, 1, 1], 2)).toBe(0.5);
    expect(() => avgAtK([1], 0)).toThrow(/integer ≥ 1/);
  });
});

describe('majAtK', () => {
  it('scores the most frequent answer; null answers do not vote', () => {
    expect(majAtK(['3', '5', '3', null], [1, 0, 1, 0], 4)).toBe(1);
    expect(majAtK(['5', null, null, '3'], [0, 0, 0, 1], 4)).toBe(0); // 1–1 tie: '5' reached 1 first
    expect(majAtK([null, null], [0, 0], 2)).toBe(0);
  });

  it('breaks ties by who reached the top count first', () => {
    // counts: 5→1, 3→1, 3→2 (new top), 5→2 (tie, no change) ⇒ '3'
    expect(majAtK(['5', '3', '3', '5'], [0, 1, 1, 0], 4)).toBe(1);
    expect(majAtK(['5', '3', '3', '5'], [0, 1, 1, 0], 1)).toBe(0); // only the first sample votes
  });
});
