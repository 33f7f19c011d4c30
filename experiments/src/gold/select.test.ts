import { UserError } from '@rred/core';
import { selectStratified } from './select';

const c = (reward: number, fits = true) => ({ reward, fits });

describe('selectStratified', () => {
  it('takes the first correct and first wrong that fit, in order, and counts the overlong ones it passed', () => {
    const candidates = [c(0), c(1, false), c(0), c(0), c(1), c(1), c(0, false), c(1)];
    expect(selectStratified(candidates, { correct: 2, wrong: 2 }, 'x')).toEqual({ indices: [0, 2, 4, 5], skippedOverlong: 1 });
    expect(selectStratified(candidates, { correct: 3, wrong: 1 }, 'x')).toEqual({ indices: [0, 4, 5, 7], skippedOverlong: 1 });
  });

  it('fails with the counts when the candidates run out', () => {
    expect(() => selectStratified([c(1), c(0), c(0, false)], { correct: 1, wrong: 2 }, 'embedded')).toThrow(UserError);
    expect(() => selectStratified([c(1), c(0), c(0, false)], { correct: 1, wrong: 2 }, 'embedded')).toThrow(
      /^embedded: 3 rollouts gave 1 correct and 1 wrong usable traces; traces.correct 1 and traces.wrong 2 were asked for \(raise problems\)$/,
    );
  });
});
