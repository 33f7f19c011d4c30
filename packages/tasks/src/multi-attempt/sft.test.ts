import { Rng } from '@rred/core';
import { generateProblem, generatorConfig } from '../generate';
import { answerOf, type Problem } from '../problem';
import { sftConfig } from '../sft';
import { TASK_ALPHABET } from '../solution';
import { attemptReward } from './format';
import { MultiAttemptMixSchema, multiAttemptSftExamples } from './sft';

/** A character tokenizer over TASK_ALPHABET with the special tokens first (as @rred/lm's, without depending on it). */
const SPECIALS = ['<pad>', '<bos>', '<eos>', '<think>', '</think>'];
const tokenizer = {
  pad: 0,
  bos: 1,
  eos: 2,
  think: 3,
  endThink: 4,
  encode: (text: string) => [...text].map((c) => 5 + TASK_ALPHABET.indexOf(c)),
  decode: (ids: readonly number[]) => ids.map((i) => (i < 5 ? SPECIALS[i] : TASK_ALPHABET[i - 5])).join(''),
};

function problems(n: number, seed: number, steps: [number, number]): Problem[] {
  const cfg = generatorConfig({ minSteps: steps[0], maxSteps: steps[1] });
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => generateProblem(rng, cfg));
}

describe('multi-attempt SFT examples', () => {
  const mix = sftConfig({ errorLineLoss: 'mask' });
  const multi = MultiAttemptMixSchema.parse({});
  const ps = problems(400, 3, [3, 4]);
  const examples = multiAttemptSftExamples(ps, mix, multi, tokenizer, new Rng(9));

  it('are deterministic for a seed', () => {
    expect(multiAttemptSftExamples(ps, mix, multi, tokenizer, new Rng(9))).toEqual(examples);
  });

  it('failed attempts verify wrong, the fix verifies right; feedback and failed attempts get no loss; K attempts fit 160 tokens', () => {
    let multiCount = 0;
    let attemptsSeen = 0;
    let longest = 0;
    examples.forEach((ex, i) => {
      longest = Math.max(longest, ex.prompt.length + ex.completion.length);
      const text = tokenizer.decode(ex.completion);
      const parts = text.split('bad<think>');
      if (parts.length === 1) return;
      multiCount += 1;
      attemptsSeen += parts.length;
      expect(parts.length).toBeLessThanOrEqual(multi.attempts);
      const expected = answerOf(ps[i]);
      parts.forEach((a, k) => expect(attemptReward(a, expected, true).reward).toBe(k === parts.length - 1 ? 1 : 0));
      // every trained position lies in the last (correct) attempt
      const fb = [...tokenizer.encode('bad'), tokenizer.think].join(',');
      let lastStart = 0;
      for (let p = 0; p + 4 <= ex.completion.length; p++) if (ex.completion.slice(p, p + 4).join(',') === fb) lastStart = p + 4;
      const untrained = new Set(ex.untrained);
      for (let p = 0; p < ex.completion.length; p++) expect(untrained.has(p)).toBe(p < lastStart);
    });
    // rate 0.5 of 400 problems, minus the all-failed draws (0.4² of the multi ones) and rare redraw failures
    expect(multiCount).toBeGreaterThan(120);
    expect(multiCount).toBeLessThan(220);
    expect(attemptsSeen / multiCount).toBeGreaterThan(2); // some fixes come at the third attempt
    expect(longest).toBeLessThanOrEqual(161);
  });

  it('problems longer than maxSteps get the base mix only', () => {
    const long = problems(50, 4, [6, 8]);
    for (const ex of multiAttemptSftExamples(long, mix, multi, tokenizer, new Rng(1)))
      expect(tokenizer.decode(ex.completion)).not.toContain('bad<think>');
  });
});
