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
});
