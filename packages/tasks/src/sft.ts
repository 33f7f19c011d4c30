import { z } from 'zod';
import { parseConfig, type Rng } from '@rred/core';
import { ANSWER_PART_SEPARATOR, answerOf, applyOp, problemText, type Problem } from './problem';
import { compositeForm } from './composite';
import { canonicalOrder, sampleSolutionOrder, countSolutionOrders } from './orders';
import { CORRECTION_MARKER, LINE_SEPARATOR, stepLine, traceSteps } from './solution';

/**
 * Mix of the supervised fine-tuning corpus. Errors are single wrong lines; a corrected error is
 * followed by `wait <correct line>` so the model learns to hesitate and recover (the marker word is
 * also a keyword for segmentation, paper Sec. 3.1).
 */
export const SftConfigSchema = z
  .object({
    alternativeOrderRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.3)
      .describe(
        'Probability that an example solves the steps in a uniformly drawn valid order other than the canonical ' +
          'one (when the problem has one). In [0,1]. Gives the model diverse reference paths (Eq. 10).',
      ),
    errorRate: z.number().min(0).max(1).default(0.15).describe('Probability that an example contains one wrong step line. In [0,1].'),
    correctionRate: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        'Probability that a wrong line is followed by a `wait` correction; otherwise the error propagates and the ' +
          'final answer is (usually) wrong. 1 leaves uncorrected errors out of SFT, because the trained ' +
          'model makes its own uncorrected errors anyway and training on wrong answers only teaches them. In [0,1].',
      ),
    operandErrorRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        'Among errors in steps that read a variable, the fraction that copy a wrong operand value (the rest get a ' +
          'wrong result). In [0,1].',
      ),
    errorLineLoss: z
      .enum(['train', 'mask'])
      .default('train')
      .describe(
        "Whether the wrong line of an error example is trained ('train') or left out of the loss ('mask', via " +
          "`untrainedSpans`; the `wait` correction after it is still trained). 'train' made the committed embedded " +
          "checkpoint. 'mask' is the 'assumptions met' test bed's choice: the model then makes only its own errors, " +
          'so a drop in p(reference) at a wrong line measures a real mistake, not an imitated error habit; it still ' +
          'learns to recover with `wait` after a wrong line in its context.',
      ),
    compositeRate: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        'Probability that an example asks the composite form (`?c,f` → `6,9`, see compositeForm) instead of the ' +
          'single answer (the committed embedded checkpoint: 0, it knows only the single form); in [0,1]. Composite ' +
          'texts contain `,`: tokenize them with COMPOSITE_TASK_ALPHABET.',
      ),
    compositeMaxParts: z
      .number()
      .int()
      .min(2)
      .max(4)
      .default(3)
      .describe('Composite examples ask for a uniform number of parts in 2..min(this, steps). Integer in 2..4.'),
    earlyExitRate: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        'Probability that an example is cut after its first k thinking lines (k uniform in 0..lines−1, each kept line ' +
          'ending in its newline, as at a mid-trace exit point), then `</think>`, the TRUE answer and `<eos>`. The ' +
          'trainer leaves that `</think>` out of the loss (`earlyExit`), so the model learns p(y | s_k, </think>) — ' +
          'what it can infer from a partial trace (the forced-exit immediate term) — without learning to stop early. ' +
          'The committed embedded checkpoint: 0. In [0,1].',
      ),
  })
  .strict();

export type SftConfig = z.infer<typeof SftConfigSchema>;

export function sftConfig(input: unknown = {}, source = 'sft config'): SftConfig {
  return parseConfig(SftConfigSchema, input, source);
}

export type SftKind = 'canonical' | 'alternative' | 'corrected' | 'uncorrected';

/** One training example; the model sees `<bos> prompt <think> thinking </think> answer <eos>`. */
export interface SftExample {
  prompt: string;
  thinking: string;
  answer: string;
  /** The problem's true answer (differs from `answer` only for some uncorrected errors). */
  expectedAnswer: string;
  kind: SftKind;
  /** True when the order is not the canonical one. */
  alternativeOrder: boolean;
  /** Character span [start, end) of the wrong line in `thinking`, so a trainer may mask it. */
  errorSpan: [number, number] | null;
  /**
   * True when the thinking was cut at a line boundary before its end (earlyExitRate): the `</think>`
   * that follows is not a place the model stops on its own and must get no loss.
   */
  earlyExit: boolean;
  /** Character spans [start, end) of `thinking` that get no loss (the wrong line under errorLineLoss 'mask'). */
  untrainedSpans: [number, number][];
}

/** A value other than `correct`, uniform over the other residues. */
export function otherValue(rng: Rng, correct: number, modulus: number): number {
  return (correct + rng.int(1, modulus - 1)) % modulus;
}

export type FullExample = Omit<SftExample, 'earlyExit' | 'untrainedSpans'>;

/**
 * One SFT example for `problem`; all draws come from `rng`. The composite and early-exit draws are made
 * only when their rates are > 0, so with the defaults the draws (and examples) are those of the
 * committed embedded checkpoint's corpus.
 */
export function sftExample(problem: Problem, config: SftConfig, rng: Rng): SftExample {
  let asked = problem;
  if (config.compositeRate > 0 && rng.next() < config.compositeRate && problem.steps.length >= 2) {
    asked = compositeForm(problem, rng.int(2, Math.min(config.compositeMaxParts, problem.steps.length)), rng);
  }
  return finishExample(fullExample(asked, config, rng), config, rng);
}

/**
 * The early exit (earlyExitRate: the thinking cut after k of its lines, the true answer) and the masked
 * wrong line (errorLineLoss 'mask') of a full example; its draws come after the example's own.
 */
export function finishExample(full: FullExample, config: SftConfig, rng: Rng): SftExample {
  const example: SftExample = { ...full, earlyExit: false, untrainedSpans: [] };
  if (config.earlyExitRate > 0 && rng.next() < config.earlyExitRate) {
    const lines = full.thinking.split(LINE_SEPARATOR);
    const k = rng.int(0, lines.length - 1);
    const thinking = lines
      .slice(0, k)
      .map((l) => l + LINE_SEPARATOR)
      .join('');
    const keepsError = full.errorSpan !== null && full.errorSpan[1] <= thinking.length;
    Object.assign(example, { thinking, answer: full.expectedAnswer, earlyExit: true, errorSpan: keepsError ? full.errorSpan : null });
  }
  if (config.errorLineLoss === 'mask' && example.errorSpan) example.untrainedSpans = [example.errorSpan];
  return example;
}

/** The example's solution order: canonical, or with alternativeOrderRate a uniform non-canonical one (when there is one). */
export function drawOrder(
  problem: Problem,
  config: Pick<SftConfig, 'alternativeOrderRate'>,
  rng: Rng,
): { order: number[]; alternativeOrder: boolean } {
  let order = canonicalOrder(problem);
  let alternativeOrder = false;
  if (rng.next() < config.alternativeOrderRate && countSolutionOrders(problem) > 1) {
    // Uniform over the non-canonical orders: redraw until different (at least half the mass is
    // non-canonical when there are ≥ 2 orders, so this ends quickly).
    do order = sampleSolutionOrder(problem, rng);
    while (order.every((v, i) => v === i));
    alternativeOrder = true;
  }
  return { order, alternativeOrder };
}

function fullExample(problem: Problem, config: SftConfig, rng: Rng): FullExample {
  const { order, alternativeOrder } = drawOrder(problem, config, rng);
  const expectedAnswer = answerOf(problem);
  const correct = traceSteps(problem, order);
  const lines = correct.map((s) => stepLine(s.name, s.left, s.op, s.right, s.result));
  const base = { prompt: problemText(problem), expectedAnswer, alternativeOrder };
  if (!(rng.next() < config.errorRate)) {
    return {
      ...base,
      thinking: lines.join(LINE_SEPARATOR),
      answer: expectedAnswer,
      kind: alternativeOrder ? 'alternative' : 'canonical',
      errorSpan: null,
    };
  }
  const at = rng.int(0, order.length - 1);
  const step = correct[at];
  const src = problem.steps[step.index];
  const readsVar = src.left.kind === 'var' || src.right.kind === 'var';
  let left = step.left;
  let right = step.right;
  let wrongResult: number;
  if (readsVar && rng.next() < config.operandErrorRate) {
    // Copy error: a wrong value for one variable operand, then arithmetic done right on it.
    const sides = (['left', 'right'] as const).filter((s) => src[s].kind === 'var');
    const side = rng.pick(sides);
    if (side === 'left') left = otherValue(rng, left, problem.modulus);
    else right = otherValue(rng, right, problem.modulus);
    wrongResult = applyOp(src.op, left, right, problem.modulus);
  } else {
    wrongResult = otherValue(rng, step.result, problem.modulus);
  }
  const wrongLine = stepLine(step.name, left, step.op, right, wrongResult);
  const before = lines.slice(0, at).join(LINE_SEPARATOR);
  const start = at === 0 ? 0 : before.length + LINE_SEPARATOR.length;
  const errorSpan: [number, number] = [start, start + wrongLine.length];
  if (rng.next() < config.correctionRate) {
    const out = [...lines.slice(0, at), wrongLine, `${CORRECTION_MARKER} ${lines[at]}`, ...lines.slice(at + 1)];
    return { ...base, thinking: out.join(LINE_SEPARATOR), answer: expectedAnswer, kind: 'corrected', errorSpan };
  }
  // Uncorrected: later steps use the wrong value, so the final answer follows from it.
  const propagated = traceSteps(problem, order, new Map([[step.index, wrongResult]]));
  const out = propagated.map((s, i) => (i === at ? wrongLine : stepLine(s.name, s.left, s.op, s.right, s.result)));
  const answer = problem.queries.map((q) => String(propagated.find((s) => s.name === q)?.result)).join(ANSWER_PART_SEPARATOR);
  return { ...base, thinking: out.join(LINE_SEPARATOR), answer, kind: 'uncorrected', errorSpan };
}

/**
 * One example per problem, each from its own stream `rng.fork(`sft-${i}`)`, so examples do not shift
 * each other. Forks depend on the seed of `rng` only: pass a different fork per epoch for fresh draws.
 */
export function sftExamples(problems: readonly Problem[], config: SftConfig, rng: Rng): SftExample[] {
  return problems.map((p, i) => sftExample(p, config, rng.fork(`sft-${i}`)));
}
