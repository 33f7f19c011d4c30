import { UserError, type Rng } from '@rred/core';
import { Rng as SeededRng } from '@rred/core';
import type { GeneratorConfig } from './config';
import { notationOf, type TaskRecord } from './dataset';
import { generateProblem, generatorConfig } from './generate';
import { answerOf, parseProblem, problemText, type Problem } from './problem';
import { countSolutionOrders, solutionOrders } from './orders';
import { solutionText } from './solution';
import { compositeForm } from './composite';

export const SPLITS = ['train', 'validation', 'eval-easy', 'eval-medium', 'eval-hard'] as const;
type SplitName = (typeof SPLITS)[number];

/** Held-out evaluation splits of rising difficulty. */
export const EVAL_SPLITS = ['eval-easy', 'eval-medium', 'eval-hard'] as const satisfies readonly SplitName[];

/** The held-out split results are reported on unless another is named. */
export const DEFAULT_EVAL_SPLIT: SplitName = 'eval-medium';

/** Seed of the committed data files (packages/tasks/data). */
export const DEFAULT_DATASET_SEED = 20260601;

/** Step counts [min, max] per split; train and validation span every difficulty. */
export const SPLIT_STEPS: Record<SplitName, [number, number]> = {
  train: [3, 8],
  validation: [3, 8],
  'eval-easy': [3, 4],
  'eval-medium': [5, 6],
  'eval-hard': [7, 8],
};

const DEFAULT_SPLIT_SIZES: Record<SplitName, number> = {
  train: 20000,
  validation: 500,
  'eval-easy': 500,
  'eval-medium': 500,
  'eval-hard': 500,
};

/** How many alternative (non-canonical) solutions a record lists in `meta.alternativeSolutions`. */
export const MAX_LISTED_ALTERNATIVES = 8;

/** The dataset record for a problem: canonical solution, answer and the task metadata. */
function toRecord(problem: Problem, id: string, split: string, config: GeneratorConfig): TaskRecord {
  const orders = solutionOrders(problem, MAX_LISTED_ALTERNATIVES + 1);
  const composite = problem.queries.length > 1 ? { answerParts: problem.queries.length } : {};
  return {
    id,
    problem: problemText(problem),
    solution: solutionText(problem, orders[0]),
    answer: answerOf(problem),
    split,
    meta: {
      steps: problem.steps.length,
      operandMax: config.operandMax,
      modulus: problem.modulus,
      operators: config.operators,
      numValidOrders: countSolutionOrders(problem),
      alternativeSolutions: orders.slice(1).map((o) => solutionText(problem, o)),
      ...composite,
    },
  };
}

/**
 * Held-out splits in the composite form, each derived from a single-answer split: the same problems
 * (so no train problem leaks in, and single vs composite compare on the same chains), asking 2 or 3
 * values (uniform, at most the step count) drawn from `seed → fork(name)`.
 */
export const COMPOSITE_SPLITS = { 'eval-medium-composite': 'eval-medium' } as const satisfies Record<string, SplitName>;
export type CompositeSplitName = keyof typeof COMPOSITE_SPLITS;

/** The records of a composite split, built from the records of its source split. */
export function compositeSplit(name: CompositeSplitName, source: readonly TaskRecord[], seed: number): TaskRecord[] {
  const rng = new SeededRng(seed).fork(name);
  return source.map((record, i) => {
    const problem = problemFromRecord(record);
    const asked = compositeForm(problem, rng.int(2, Math.min(3, problem.steps.length)), rng);
    const config = generatorConfig(
      { operandMax: record.meta.operandMax, operators: record.meta.operators, minSteps: 1, maxSteps: 12 },
      `record ${record.id}`,
    );
    return toRecord(asked, `${name}-${String(i).padStart(5, '0')}`, name, config);
  });
}

/** The Problem behind a record of this task (modulus from `meta.modulus`, default 10; a prose record's from `meta.notation`). */
export function problemFromRecord(record: TaskRecord): Problem {
  const modulus = record.meta.modulus ?? 10;
  if (typeof modulus !== 'number' || !Number.isInteger(modulus) || modulus < 2) {
    throw new UserError(`record ${record.id}: meta.modulus must be an integer >= 2, got ${JSON.stringify(modulus)}`);
  }
  return parseProblem(notationOf(record).text, modulus, `record ${record.id}`);
}

/**
 * Draws `count` problems with distinct texts, none in `exclude`; adds the new texts to `exclude`.
 * Deterministic in `rng`; a larger count extends a smaller one (same prefix).
 */
function distinctProblems(rng: Rng, config: GeneratorConfig, count: number, exclude: Set<string>, split: string): Problem[] {
  const out: Problem[] = [];
  let misses = 0;
  while (out.length < count) {
    const p = generateProblem(rng, config);
    const text = problemText(p);
    if (exclude.has(text)) {
      if (++misses > 20 * count + 1000) {
        throw new UserError(
          `split ${split}: only ${out.length} distinct problems of the ${count} asked for could be drawn ` +
            `(steps ${config.minSteps}..${config.maxSteps}); ask for fewer or widen the generator`,
        );
      }
      continue;
    }
    exclude.add(text);
    out.push(p);
  }
  return out;
}

/**
 * Builds every split deterministically from `seed`. Held-out splits are drawn first (hardest first),
 * each from its own stream `seed → fork(split)`, then validation, then train; a problem text is never
 * reused across or within splits, so no held-out problem appears in train. Sizes not given take
 * `DEFAULT_SPLIT_SIZES`, so the held-out splits stay the same whatever train size is asked for.
 */
export function buildDatasets(
  seed: number,
  sizes: Partial<Record<SplitName, number>> = {},
  generator: Partial<Omit<GeneratorConfig, 'minSteps' | 'maxSteps'>> = {},
): Record<SplitName, TaskRecord[]> {
  const allSizes = { ...DEFAULT_SPLIT_SIZES, ...sizes };
  for (const [split, n] of Object.entries(allSizes)) {
    if (!(SPLITS as readonly string[]).includes(split))
      throw new UserError(`unknown split '${split}'; expected one of ${SPLITS.join(', ')}`);
    if (!Number.isInteger(n) || n < 0) throw new UserError(`size of split ${split} must be an integer >= 0, got ${n}`);
  }
  const root = new SeededRng(seed);
  const seen = new Set<string>();
  const out = {} as Record<SplitName, TaskRecord[]>;
  for (const split of ['eval-hard', 'eval-medium', 'eval-easy', 'validation', 'train'] as const) {
    const [minSteps, maxSteps] = SPLIT_STEPS[split];
    const config = generatorConfig({ ...generator, minSteps, maxSteps }, `generator for split ${split}`);
    const problems = distinctProblems(root.fork(split), config, allSizes[split], seen, split);
    out[split] = problems.map((p, i) => toRecord(p, `${split}-${String(i).padStart(5, '0')}`, split, config));
  }
  return out;
}

/**
 * Reference solution paths for the value term (Eq. 9): the canonical solution plus up to `limit - 1`
 * alternative valid orders, each with the answer.
 */
export function referenceSolutions(problem: Problem, limit = 1): { solution: string; answer: string }[] {
  const answer = answerOf(problem);
  return solutionOrders(problem, Math.max(1, limit)).map((o) => ({ solution: solutionText(problem, o), answer }));
}
