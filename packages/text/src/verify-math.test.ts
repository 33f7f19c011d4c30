import { normalizeAnswer, verifyMath } from './verify-math';

/** [completion, expected, correct]: hand-written, the tricky ones from real GSM8K / MATH answers included. */
const CASES: [string, string, boolean][] = [
  // integers, signs, decimals
  ['42', '42', true],
  ['42', '43', false],
  ['-7', '-7', true],
  ['-7', '7', false],
  ['+5', '5', true],
  ['3.0', '3', true],
  ['3.50', '3.5', true],
  ['0.1', '0.10000', true],
  ['.5', '0.5', true],
  ['0.333', '1/3', false],
  ['0.3333333333', '\\frac{1}{3}', true],
  // fractions
  ['0.5', '\\frac{1}{2}', true],
  ['\\frac{1}{2}', '0.5', true],
  ['\\dfrac{3}{4}', '0.75', true],
  ['\\tfrac{3}{4}', '\\frac{6}{8}', true],
  ['3/4', '\\frac34', true],
  ['\\frac{1}{3}', '\\frac{1}{4}', false],
  ['-\\frac{2}{5}', '-0.4', true],
  ['\\frac{\\frac{1}{2}}{2}', '\\frac{1}{4}', true],
  // roots, π, powers
  ['\\sqrt{2}', '1.41421356237', true],
  ['2\\sqrt{3}', '\\sqrt{12}', true],
  ['\\sqrt[3]{8}', '2', true],
  ['\\sqrt2', '\\sqrt{2}', true],
  ['\\frac{\\sqrt{3}}{2}', '\\frac{\\sqrt3}{2}', true],
  ['\\sqrt{3}', '\\sqrt{2}', false],
  ['2\\pi', '6.283185307', true],
  ['\\pi r^2', 'r^2\\pi', true],
  ['2^{10}', '1024', true],
  ['10^{-2}', '0.01', true],
  // thousands separators
  ['1,000', '1000', true],
  ['1,234,567', '1234567', true],
  ['1000', '1,000', true],
  ['12,5', '125', false],
  ['1,000.5', '1000.5', true],
  // percentages
  ['50\\%', '50', true],
  ['50%', '0.5', true],
  ['25%', '25\\%', true],
  ['40%', '50%', false],
  // units, \text{}, dollars, degrees
  ['5\\text{ cm}', '5', true],
  ['18 dollars', '18', true],
  ['\\$18', '18', true],
  ['\\$1,200', '1200', true],
  ['90^\\circ', '90', true],
  ['90°', '90', true],
  ['12 \\text{ inches}^2', '12', true],
  ['\\text{Evelyn}', 'Evelyn', true],
  ['\\textbf{(C)}', '(C)', true],
  ['\\text{(B)}', '\\text{(C)}', false],
  // variables, equations
  ['x=3', '3', true],
  ['x = -2', '-2', true],
  ['y=\\frac{1}{2}', '0.5', true],
  ['2x+1', '1+2x', true],
  ['x^2-1', '(x-1)(x+1)', true],
  ['2x+1', '2x-1', false],
  ['3a', '3b', false],
  // boxed extraction
  ['so the answer is \\boxed{7}.', '7', true],
  ['\\boxed{\\frac{1}{2}}', '\\frac12', true],
  ['first \\boxed{3}, then corrected: \\boxed{4}', '3, 4', true],
  ['\\boxed{2} and \\boxed{3}', '3, 2', true],
  ['\\boxed{2} and \\boxed{3}', '2', false],
  ['\\boxed{5}', '\\boxed{5}', true],
  ['$\\boxed{10}$', '10', true],
  ['\\boxed{}', '0', false],
  ['The answer is 12.', '12', false],
  // tuples, intervals, lists
  ['(1, 2)', '(1,2)', true],
  ['(2, 1)', '(1, 2)', false],
  ['[0, \\frac{1}{2})', '[0, 0.5)', true],
  ['(0, 1]', '(0, 1)', false],
  ['1, 2, 3', '3, 2, 1', true],
  ['\\left( 3, \\frac{\\pi}{2} \\right)', '(3, \\frac{\\pi}{2})', true],
  // delimiters and spacing
  ['$7$', '7', true],
  ['\\(7\\)', '7', true],
  ['7.', '7', true],
  ['1\\,000', '1000', true],
  // text answers
  ['yes', 'Yes', true],
  ['no', 'yes', false],
  ['Evelyn', 'Evelny', false],
  ['', '3', false],
];

describe('verifyMath (mathjs): hand-written cases', () => {
  it(`has at least 60 cases (${CASES.length})`, () => expect(CASES.length).toBeGreaterThanOrEqual(60));
  it.each(CASES)('%j vs %j → %s', (completion, expected, correct) => {
    expect(verifyMath(completion, expected).reward).toBe(correct ? 1 : 0);
  });
});

describe('normalizeAnswer', () => {
  it('strips delimiters, units and separators, reads x = 3 as 3', () => {
    expect(normalizeAnswer(' $1,000$ ')).toBe('1000');
    expect(normalizeAnswer('x = 3')).toBe('3');
    expect(normalizeAnswer('5\\text{ cm}')).toBe('5');
    expect(normalizeAnswer('50\\%')).toBe('50%');
  });
  it('reports how it matched and what it read', () => {
    expect(verifyMath('\\boxed{0.5}', '\\frac{1}{2}')).toEqual({ reward: 1, answer: '0.5', match: 'numeric' });
    expect(verifyMath('2x+1', '1+2x').match).toBe('symbolic');
    expect(verifyMath('\\boxed{2} and \\boxed{3}', '3, 2')).toEqual({ reward: 1, answer: '2, 3', match: 'list' });
    expect(verifyMath('\\text{Evelyn}', 'Evelyn').match).toBe('text');
  });
});
