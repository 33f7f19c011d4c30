import { z } from 'zod';
import { parseConfig, type Rng } from '@rred/core';
import { answerOf, applyOp, problemText, type Problem } from './problem';
import { canonicalOrder, sampleSolutionOrder, countSolutionOrders } from './orders';
import { CORRECTION_MARKER, LINE_SEPARATOR, stepLine, traceSteps } from './solution';

/**
 * Mix of the supervised fine-tuning corpus. Errors are single wrong lines; a corrected error is
 * followed by `wait <correct line>` so the model learns to hesitate and recover (the marker word is
 * also a keyword for segmentation, paper Sec. 3.1).
 */
const SftConfigSchema = z
  .object({
    alternativeOrderRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.3)
      .describe(
        'Probability that an example solves the steps in a uniformly drawn valid order other than the canonical ' +
          'one (when the problem has one). Default 0.3; in [0,1]. Gives the model diverse reference paths (Eq. 10).',
      ),
    errorRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.15)
      .describe('Probability that an example contains one wrong step line. Default 0.15; in [0,1].'),
    correctionRate: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        'Probability that a wrong line is followed by a `wait` correction; otherwise the error propagates and the ' +
          'final answer is (usually) wrong. Default 1: uncorrected errors are left out of SFT, because the trained ' +
          "model makes its own uncorrected errors anyway and training on wrong answers only teaches them. In [0,1].",
      ),
    operandErrorRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        'Among errors in steps that read a variable, the fraction that copy a wrong operand value (the rest get a ' +
          'wrong result). Default 0.5; in [0,1].',
      ),
  })
  .strict();

type SftConfig = z.infer<typeof SftConfigSchema>;

export function sftConfig(input: unknown = {}, source = 'sft config'): SftConfig {
  return parseConfig(SftConfigSchema, input, source);
}

type SftKind = 'canonical' | 'alternative' | 'corrected' | 'uncorrected';

/** One training example; the model sees `<bos> prompt <think> thinking </think> answer <eos>`. */
interface SftExample {
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
}

function otherValue(rng: Rng, correct: number, modulus: number): number {
  return (correct + rng.int(1, modulus - 1)) % modulus;
}

/** One SFT example for `problem`; all draws come from `rng`. */
export function sftExample(problem: Problem, config: SftConfig, rng: Rng): SftExample {
  let order = canonicalOrder(problem);
  let alternativeOrder = false;
  if (rng.next() < config.alternativeOrderRate && countSolutionOrders(problem) > 1) {
    // Uniform over the non-canonical orders: redraw until different (at least half the mass is
    // non-canonical when there are ≥ 2 orders, so this ends quickly).
    do order = sampleSolutionOrder(problem, rng);
    while (order.every((v, i) => v === i));
    alternativeOrder = true;
  }
  const expectedAnswer = answerOf(problem);
  const correct = traceSteps(problem, order);
  const lines = correct.map((s) => stepLine(s.name, s.left, s.op, s.right, s.result));
  const base = { prompt: problemText(problem), expectedAnswer, alternativeOrder };
  if (!(rng.next() < config.errorRate)) {
    return { ...base, thinking: lines.join(LINE_SEPARATOR), answer: expectedAnswer, kind: alternativeOrder ? 'alternative' : 'canonical', errorSpan: null };
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
  const finalStep = propagated.find((s) => s.name === problem.query);
  return { ...base, thinking: out.join(LINE_SEPARATOR), answer: String(finalStep?.result), kind: 'uncorrected', errorSpan };
}

/**
 * One example per problem, each from its own stream `rng.fork(`sft-${i}`)`, so examples do not shift
 * each other. Forks depend on the seed of `rng` only: pass a different fork per epoch for fresh draws.
 */
export function sftExamples(problems: readonly Problem[], config: SftConfig, rng: Rng): SftExample[] {
  return problems.map((p, i) => sftExample(p, config, rng.fork(`sft-${i}`)));
}
