import { fmt, toCsv, toMarkdown, withFixedDigits } from './table';

describe('tables', () => {
  it('spells out non-finite numbers', () => {
    expect(fmt(NaN)).toBe('NaN');
    expect(fmt(-Infinity)).toBe('-Inf');
    expect(fmt(0.12345, 2)).toBe('0.12');
    expect(fmt(null)).toBe('—');
  });

  it('renders markdown and csv (integers stay integers in markdown)', () => {
    const t = { columns: ['a', 'b'], rows: [['x|y', 0.5], ['q,"r"', null], ['n', 20]] };
    expect(toMarkdown(t)).toBe('| a | b |\n| --- | --- |\n| x\\|y | 0.500 |\n| q,"r" | — |\n| n | 20 |\n');
    expect(toCsv(t)).toBe('a,b\nx|y,0.5\n"q,""r""",\nn,20\n');
  });
});

describe('withFixedDigits', () => {
  it('keeps count columns as given and fixes digits elsewhere', () => {
    const t = withFixedDigits({ columns: ['n', 'frac', 'name'], rows: [[3, 1, 'a'], [4, 0.25, null]] }, ['n']);
    expect(toMarkdown(t)).toBe('| n | frac | name |\n| --- | --- | --- |\n| 3 | 1.000 | a |\n| 4 | 0.250 | — |\n');
  });
});
