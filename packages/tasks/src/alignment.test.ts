import { reachedSubgoals, remainingAlignment, remainingSolution } from './alignment';

// a=3+4;b=a-2;c=5+b;d=a+1;?d — canonical a,b,c,d; also valid: a,d,b,c
const reference = 'a=3+4=7\nb=7-2=5\nc=5+5=0\nd=7+1=8';

describe('remainingSolution', () => {
  it('correct so far: exactly the reference lines not yet written', () => {
    expect(remainingSolution('', reference)).toBe(reference);
    expect(remainingSolution('a=3+4=7\n', reference)).toBe('b=7-2=5\nc=5+5=0\nd=7+1=8');
    expect(remainingSolution('a=3+4=7\nb=7-2=5\n', reference)).toBe('c=5+5=0\nd=7+1=8');
    expect(remainingSolution('a=3+4=7\nb=7-2=5\nc=5+5=0\nd=7+1=8', reference)).toBe(''); // s_K
  });

  it('one wrong line: the variable is reached, the rest keeps the correct values', () => {
    expect(remainingSolution('a=3+4=7\nb=7-2=4\n', reference)).toBe('c=5+5=0\nd=7+1=8');
    expect(reachedSubgoals('a=3+4=7\nb=7-2=4\n')).toEqual(new Set(['a', 'b']));
  });

  it('a corrected line (wait) counts once', () => {
    expect(remainingSolution('a=3+4=7\nb=7-2=4\nwait b=7-2=5\n', reference)).toBe('c=5+5=0\nd=7+1=8');
    expect(remainingSolution('a=3+4=7\nb=7-2=4\nwait b=7-2=5\nc=5+5=0\n', reference)).toBe('d=7+1=8');
  });

  it('an alternative order: what is left, in the reference order', () => {
    expect(remainingSolution('a=3+4=7\nd=7+1=8\n', reference)).toBe('b=7-2=5\nc=5+5=0');
    expect(remainingSolution('a=3+4=7\nd=7+1=8\nb=7-2=5\n', reference)).toBe('c=5+5=0');
  });

  it('a prefix ending inside a line: the partial line is not a subgoal, the rest starts on a new line', () => {
    expect(remainingSolution('a=3+4=7\nb=7-', reference)).toBe('\nb=7-2=5\nc=5+5=0\nd=7+1=8');
    expect(remainingSolution('a=3+4=7', reference)).toBe('\nb=7-2=5\nc=5+5=0\nd=7+1=8'); // a complete last line counts
  });

  it('leaves out reference lines that compute no variable (an own sampled reference may hold them)', () => {
    // a line that computes no variable, as an own sampled reference may hold: "w=3" in a correct sampled trace
    const own = 'a=3+4=7\nw=3\nb=7-2=5\nc=5+5=0\nd=7+1=8';
    expect(remainingSolution('a=3+4=7\n', own)).toBe('b=7-2=5\nc=5+5=0\nd=7+1=8');
    expect(remainingSolution('', 'a=3+4=7\nhello')).toBe('a=3+4=7');
    expect(remainingSolution('a=3+4=7\n', 'a=3+4=7\nhello')).toBe('');
  });

  it('on token ids through a codec', () => {
    const codec = {
      encode: (t: string) => Array.from(t, (c) => c.charCodeAt(0)),
      decode: (ids: readonly number[]) => String.fromCharCode(...ids),
    };
    const align = remainingAlignment(codec);
    expect(codec.decode(align(codec.encode('a=3+4=7\n'), codec.encode(reference)))).toBe('b=7-2=5\nc=5+5=0\nd=7+1=8');
  });
});
