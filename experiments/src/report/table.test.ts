import { fmt, toCsv, toMarkdown } from './table';

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
