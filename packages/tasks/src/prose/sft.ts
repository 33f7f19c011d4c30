import { z } from 'zod';
import type { Operator } from '../config';
import { UserError, parseConfig, type Rng } from '@rred/core';
import { answerOf, applyOp, type Problem } from '../problem';
import { LINE_SEPARATOR, traceSteps } from '../solution';
import { drawOrder, finishExample, otherValue, type FullExample, type SftConfig, type SftExample } from '../sft';
import { proseProblemText, listWords } from './render';
import { CORRECTION_PREFIXES, RESTATE_TEMPLATES, STEP_TEMPLATES, fill, lowerFirstWord } from './templates';

/**
 * What the free-form bed's SFT corpus adds to the task's mix (@rred/tasks SftConfig: orders, errors and
 * `wait` corrections, errorLineLoss, early exits, at the same rates and with the same meaning): the
 * phrasing. Each line's template is drawn uniformly from the bed's templates.
 */
export const ProseMixSchema = z
  .object({
    restateRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .describe(
        'Probability that a step which reads variables is preceded by a restatement line (`We still need e, which uses d.`), ' +
          'a line that assigns nothing, as real traces hold. In [0,1].',
      ),
  })
  .strict();

export type ProseMix = z.infer<typeof ProseMixSchema>;

export function proseMix(input: unknown = {}, source = 'prose mix'): ProseMix {
  return parseConfig(ProseMixSchema, input, source);
}

interface StepValues {
  name: string;
  /** One of the task's operators. */
  op: string;
  left: number;
  right: number;
  result: number;
}

/** One step line in a drawn template: `Adding 3 to 4 gives a = 7.` */
function stepSentence(s: StepValues, rng: Rng): string {
  return fill(rng.pick(STEP_TEMPLATES[s.op as Operator]), { x: s.name, l: s.left, r: s.right, v: s.result });
}

/** A `wait` correction of step `s` in a drawn opening and template. */
function correctionSentence(s: StepValues, rng: Rng): string {
  const opening = fill(rng.pick(CORRECTION_PREFIXES), { x: s.name });
  return opening + lowerFirstWord(stepSentence(s, rng));
}

/** The variables step `index` reads, in the order it reads them (none for a step of literals). */
function readsOf(problem: Problem, index: number): string[] {
  const s = problem.steps[index];
  return [s.left, s.right].flatMap((o) => (o.kind === 'var' ? [o.name] : [])).filter((v, i, a) => a.indexOf(v) === i);
}

/**
 * One free-form SFT example for `problem`, all draws from `rng`: the order, the error (as the task's
 * mix: one wrong line in errorRate of the examples, an operand copied wrong in operandErrorRate of the
 * errors of steps that read a variable, then a `wait` correction with correctionRate), each line's
 * template, the restatements, then the early exit. `errorSpan` is the wrong line's character span.
 */
function proseSftExample(problem: Problem, mix: SftConfig, prose: ProseMix, rng: Rng): SftExample {
  if (mix.compositeRate > 0) throw new UserError('free-form mix: compositeRate must be 0 (the prose problems ask one value)');
  const { order, alternativeOrder } = drawOrder(problem, mix, rng);
  const expectedAnswer = answerOf(problem);
  const correct = traceSteps(problem, order);
  const errorAt = rng.next() < mix.errorRate ? rng.int(0, order.length - 1) : -1;
  let wrong: StepValues | null = null;
  if (errorAt >= 0) {
    const step = correct[errorAt];
    const src = problem.steps[step.index];
    const sides = (['left', 'right'] as const).filter((side) => src[side].kind === 'var');
    if (sides.length > 0 && rng.next() < mix.operandErrorRate) {
      const side = rng.pick(sides);
      const left = side === 'left' ? otherValue(rng, step.left, problem.modulus) : step.left;
      const right = side === 'right' ? otherValue(rng, step.right, problem.modulus) : step.right;
      wrong = { ...step, left, right, result: applyOp(src.op, left, right, problem.modulus) };
    } else {
      wrong = { ...step, result: otherValue(rng, step.result, problem.modulus) };
    }
  }
  const corrected = wrong !== null && rng.next() < mix.correctionRate;
  // uncorrected: later steps read the wrong value, so the answer follows from it
  const steps = wrong && !corrected ? traceSteps(problem, order, new Map([[correct[errorAt].index, wrong.result]])) : correct;
  const lines: string[] = [];
  let errorSpan: [number, number] | null = null;
  steps.forEach((s, i) => {
    const reads = readsOf(problem, s.index);
    if (reads.length > 0 && rng.next() < prose.restateRate) {
      lines.push(fill(rng.pick(RESTATE_TEMPLATES), { x: s.name, deps: listWords(reads) }));
    }
    if (i === errorAt && wrong) {
      const start = lines.reduce((n, l) => n + l.length + LINE_SEPARATOR.length, 0);
      const text = stepSentence(wrong, rng);
      errorSpan = [start, start + text.length];
      lines.push(text);
      if (corrected) lines.push(correctionSentence(s, rng));
    } else {
      lines.push(stepSentence(s, rng));
    }
  });
  const last = steps.find((s) => s.name === problem.queries[problem.queries.length - 1]);
  const answer = corrected || !wrong ? expectedAnswer : String(last?.result);
  const kind = wrong ? (corrected ? 'corrected' : 'uncorrected') : alternativeOrder ? 'alternative' : 'canonical';
  const full: FullExample = {
    prompt: proseProblemText(problem),
    thinking: lines.join(LINE_SEPARATOR),
    answer,
    expectedAnswer,
    kind,
    alternativeOrder,
    errorSpan,
  };
  return finishExample(full, mix, rng);
}

/** One example per problem, each from its own stream `rng.fork(`prose-${i}`)` (see sftExamples). */
export function proseSftExamples(problems: readonly Problem[], mix: SftConfig, prose: ProseMix, rng: Rng): SftExample[] {
  return problems.map((p, i) => proseSftExample(p, mix, prose, rng.fork(`prose-${i}`)));
}
