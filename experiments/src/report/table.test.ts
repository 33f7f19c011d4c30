import { fmt, toCsv, toMarkdown } from './table';

describe('tables', () => {
  it('spells out non-finite numbers', () => {
    expect(fmt(NaN)).toBe('NaN');
    expect(fmt(-Infinity)).toBe('-Inf');
    expect(fmt(0.12345, 2)).toBe('0.12');
    expect(fmt(null)).toBe('—');
  });

  it('renders markdown and csv', () => {
    const t = { columns: ['a', 'b'], rows: [['x|y', 0.5], ['q,"r"', null]] };
    expect(toMarkdown(t)).toBe('| a | b |\n| --- | --- |\n| x\\|y | 0.500 |\n| q,"r" | — |\n');
    expect(toCsv(t)).toBe('a,b\nx|y,0.5\n"q,""r""",\n');
  });
});
