/**
 * The problems and the starting model of a test bed's children: train prompts built from the dataset seed
 * (the bed's rendering: prose for a bed with its own split directory, e.g. freeForm), the first problems of
 * its validation and eval split files. One of the entry files of the child's code identity (code-identity.ts).
 */
import { TransformerLM, bedOfCheckpoint } from '@rred/lm';
import { buildDatasets, buildProseDatasets, type TaskRecord } from '@rred/tasks';
import { bedSplit, loadSplit } from '../common/rollouts';
import type { ChildData } from './child';

interface ChildDataSizes {
  datasetSeed: number;
  trainProblems: number;
  validationProblems: number;
  evaluation: { splits: readonly string[]; problems: number };
}

/** `checkpoint` relative to the repository root (the registry's form); `checkpointFile` where to read it. */
export function loadChildData(checkpoint: string, checkpointFile: string, sizes: ChildDataSizes): ChildData {
  const prose = bedOfCheckpoint(checkpoint)?.splitDir !== undefined;
  const build = prose ? buildProseDatasets : buildDatasets;
  const evalSplits: Record<string, readonly TaskRecord[]> = {};
  for (const split of sizes.evaluation.splits) evalSplits[split] = loadSplit(bedSplit(split, checkpoint), sizes.evaluation.problems);
  return {
    loadModel: () => TransformerLM.fromCheckpoint(checkpointFile),
    train: build(sizes.datasetSeed, { train: sizes.trainProblems }).train,
    validation: loadSplit(bedSplit('validation', checkpoint), sizes.validationProblems),
    evalSplits,
  };
}
