import type { TaskRecord } from '@rred/tasks';
import { firstErrorSegment } from './first-error';

const record: TaskRecord = {
  id: 'p0',
  problem: 'a=4+3;b=a+8;c=9+7;d=c+b;?d',
  solution: 'a=4+3=7\nb=7+8=5\nc=9+7=6\nd=6+5=1',
  answer: '1',
  split: 'eval-medium',
  meta: { steps: 4, operandMax: 9, modulus: 10, operators: ['+', '-'] },
};

/** A trace over a one-character-per-token codec (id = char code; 0 = `</think>`), cut into segments after the given lines. */
function trace(lines: string[], linesPerSegment: number[]) {
  const thinking = lines.join('\n');
  const completion = [...[...thinking].map((ch) => ch.charCodeAt(0)), 0, '1'.charCodeAt(0)];
  const segments: { start: number; end: number }[] = [];
  let line = 0;
  let start = 0;
  for (const n of linesPerSegment) {
    line += n;
    const end = line >= lines.length ? thinking.length : lines.slice(0, line).join('\n').length + 1;
    segments.push({ start, end });
    start = end;
  }
  return { trace: { completion, thinkEnd: thinking.length }, segments };
}
const tokenText = (id: number) => (id === 0 ? '</think>' : String.fromCharCode(id));

describe('firstErrorSegment', () => {
  it('finds the segment holding the first uncorrected wrong line', () => {
    const { trace: t, segments } = trace(['a=4+3=7', 'b=7+8=5', 'c=9+7=7', 'd=7+5=2'], [2, 1, 1]);
    expect(firstErrorSegment(record, t, segments, tokenText)).toEqual({ segment: 2, kind: 'wrong-result' });
  });

  it('skips a corrected line and reports none for a clean trace', () => {
    const corrected = trace(['a=4+3=7', 'b=7+8=4', 'wait b=7+8=5', 'c=9+7=6', 'd=6+5=1'], [1, 2, 2]);
    expect(firstErrorSegment(record, corrected.trace, corrected.segments, tokenText)).toEqual({ segment: null, kind: null });
    const propagated = trace(['a=4+3=7', 'b=7+8=5', 'c=9+7=6', 'd=6+4=0'], [3, 1]);
    expect(firstErrorSegment(record, propagated.trace, propagated.segments, tokenText)).toEqual({ segment: 2, kind: 'wrong-operand' });
  });

  it("reads a free-form record's trace in the bed's phrasings", () => {
    const prose: TaskRecord = {
      ...record,
      problem: 'Let a be 4 plus 3. Let b be a plus 8. Let c be 9 plus 7. Let d be c plus b. What is d?',
      solution: 'Step 1. a = 4 + 3 = 7.\nStep 2. b = 7 + 8 = 5.\nStep 3. c = 9 + 7 = 6.\nStep 4. d = 6 + 5 = 1.',
      meta: { ...record.meta, format: 'prose', notation: record.problem },
    };
    const lines = [
      'Now c: 9 + 7 = 6.',
      'a is 4 plus 3, which is 7.',
      'We still need b, which uses a.',
      'Adding 8 to 7 gives b = 4.',
      'd = 6 + 4, so d is 0.',
    ];
    const { trace: t, segments } = trace(lines, [2, 1, 1, 1]);
    expect(firstErrorSegment(prose, t, segments, tokenText)).toEqual({ segment: 3, kind: 'wrong-result' });
    const fixed = trace([...lines.slice(0, 4), 'Wait, no: adding 8 to 7 gives b = 5.', 'd = 6 + 5, so d is 1.'], [2, 2, 2]);
    expect(firstErrorSegment(prose, fixed.trace, fixed.segments, tokenText)).toEqual({ segment: null, kind: null });
    // the notation oracle would call every prose line malformed
    expect(firstErrorSegment(record, fixed.trace, fixed.segments, tokenText)).toEqual({ segment: 1, kind: 'malformed' });
  });
});
