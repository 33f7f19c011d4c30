export { GeneratorConfigSchema, OPERATORS, VARIABLE_NAMES } from './config';
export type { GeneratorConfig, Operator } from './config';
export { generateProblem, generatorConfig } from './generate';
export { ANSWER_PART_SEPARATOR, answerOf, applyOp, dependencies, evaluate, parseProblem, problemText, promptText } from './problem';
export { compositeForm, isComposite } from './composite';
export type { Operand, Problem, Step } from './problem';
export { canonicalOrder, countSolutionOrders, isValidOrder, sampleSolutionOrder, solutionOrders } from './orders';
export { COMPOSITE_TASK_ALPHABET, CORRECTION_MARKER, LINE_SEPARATOR, TASK_ALPHABET, solutionText, stepLine } from './solution';
export { END_OF_SEQUENCE, THINK_CLOSE, THINK_OPEN, extractAnswer, verify } from './verify';
export type { VerifyReason, VerifyResult } from './verify';
export { SftConfigSchema, sftConfig, sftExample, sftExamples } from './sft';
export type { SftConfig, SftExample, SftKind } from './sft';
export { readJsonl, writeJsonl } from './dataset';
export type { ReadJsonlOptions, TaskRecord } from './dataset';
export {
  COMPOSITE_SPLITS,
  DEFAULT_DATASET_SEED,
  DEFAULT_EVAL_SPLIT,
  DEFAULT_SPLIT_SIZES,
  EVAL_SPLITS,
  MAX_LISTED_ALTERNATIVES,
  SPLITS,
  SPLIT_STEPS,
  buildDatasets,
  compositeSplit,
  problemFromRecord,
  referenceSolutions,
  toRecord,
} from './build';
export type { CompositeSplitName, SplitName } from './build';
