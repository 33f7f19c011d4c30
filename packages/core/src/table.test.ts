import { fmt, textTable, toCsv, toMarkdown, withFixedDigits } from './table';

describe('tables', () => {
  it('spells out non-finite numbers', () => {
    expect(fmt(NaN)).toBe('NaN');
    expect(fmt(-Infinity)).toBe('-Inf');
    expect(fmt(0.12345, 2)).toBe('0.12');
    expect(fmt(null)).toBe('—');
  });

  it('renders markdown and csv (integers stay integers in markdown)', () => {
    const t = {
      columns: ['a', 'b'],
      rows: [
        ['x|y', 0.5],
        ['q,"r"', null],
        ['n', 20],
      ],
    };
    expect(toMarkdown(t)).toBe('| a | b |\n| --- | --- |\n| x\\|y | 0.500 |\n| q,"r" | — |\n| n | 20 |\n');
    expect(toCsv(t)).toBe('a,b\nx|y,0.5\n"q,""r""",\nn,20\n');
  });
});

describe('withFixedDigits', () => {
  it('keeps count columns as given and fixes digits elsewhere', () => {
    const t = withFixedDigits(
      {
        columns: ['n', 'frac', 'name'],
        rows: [
          [3, 1, 'a'],
          [4, 0.25, null],
        ],
      },
      ['n'],
    );
    expect(toMarkdown(t)).toBe('| n | frac | name |\n| --- | --- | --- |\n| 3 | 1.000 | a |\n| 4 | 0.250 | — |\n');
  });
});

describe('toCsv', () => {
  it('quotes only fields with a comma, quote or line break; full-precision numbers; -0 as 0', () => {
    const t = {
      columns: ['k', 'v'],
      rows: [
        ['a\nb', 0.1 + 0.2],
        ['c\rd', -0],
        ['e', 1e21],
      ],
    };
    expect(toCsv(t)).toBe('k,v\n"a\nb",0.30000000000000004\n"c\rd",0\ne,1e+21\n');
    expect(toCsv({ columns: ['only'], rows: [] })).toBe('only\n');
  });
});

describe('textTable', () => {
  const t = {
    columns: ['name', 'n'],
    rows: [
      ['alpha', 3],
      ['b', 12345],
      ['c', null],
    ],
  };
  it('left-aligns by default, trims trailing blanks', () => {
    expect(textTable(t)).toBe('name   n\n-----  -----\nalpha  3\nb      12345\nc');
  });
  it('right-aligns the figures with align: numbers', () => {
    expect(textTable(t, 'numbers')).toBe('name       n\n-----  -----\nalpha      3\nb      12345\nc');
  });
});
