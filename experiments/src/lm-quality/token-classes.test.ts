import { meanEntropyByRole, tokenRoles } from './token-classes';

const chars = (s: string) => s.split('');

describe('tokenRoles', () => {
  it('marks computed digits as results and format characters as format', () => {
    const texts = [...chars('a=3+4=7\nb=7-2=5'), '</think>', '5', '<eos>'];
    const roles = tokenRoles(texts);
    const byText = texts.map((t, i) => `${t}:${roles[i]}`);
    expect(byText).toEqual([
      'a:other',
      '=:format',
      '3:other',
      '+:other',
      '4:other',
      '=:format',
      '7:result',
      '\n:format',
      'b:other',
      '=:format',
      '7:other',
      '-:other',
      '2:other',
      '=:format',
      '5:result',
      '</think>:format',
      '5:result',
      '<eos>:format',
    ]);
  });

  it('averages entropies per role and reports a missing role as NaN', () => {
    const stats = meanEntropyByRole([{ texts: ['=', '1', '=', '2', '\n'], entropies: [0.1, 1, 0.3, 2, 0.2] }]);
    expect(stats.format.count).toBe(3);
    expect(stats.format.mean).toBeCloseTo(0.2, 12);
    expect(stats.result).toEqual({ mean: 2, count: 1 }); // '2' follows the second '='; '1' does not count
    expect(stats.other.count).toBe(1);
    expect(Number.isNaN(meanEntropyByRole([]).result.mean)).toBe(true);
    expect(() => meanEntropyByRole([{ texts: ['='], entropies: [] }])).toThrow(/1 tokens but 0 entropies/);
  });

  it("marks each prose line's value and the answer as results", () => {
    const texts = [
      'The',
      ' sum',
      ' of',
      ' 4',
      ' and',
      ' 3',
      ' is',
      ' 7',
      ',',
      ' so',
      ' a',
      ' is',
      ' 7',
      '.',
      '\n',
      'b',
      ' =',
      ' 7',
      ' -',
      ' 2',
      ',',
      ' so',
      ' b',
      ' is',
      ' 5',
      '.',
      '</think>',
      '5',
      '<eos>',
    ];
    const roles = tokenRoles(texts, true);
    expect(texts.flatMap((t, i) => (roles[i] === 'result' ? [`${i}:${t}`] : []))).toEqual(['12: 7', '24: 5', '27:5']);
    expect(texts.flatMap((t, i) => (roles[i] === 'format' ? [t] : []))).toEqual(['\n', ' =', '</think>', '<eos>']);
  });
});
