import type { Rng } from '@rred/core';
import { Tokenizer } from '@rred/lm';
import { COMPOSITE_TASK_ALPHABET, TASK_ALPHABET, buildDatasets, buildProseDatasets, problemFromRecord, prosePieces } from '@rred/tasks';
import type { PretrainConfig } from './configs/pretrain';
import { taskCorpus } from './task-corpus';

/**
 * What a pretrain config trains on: the tokenizer (the task's character alphabet, or the free-form bed's
 * pieces), the dataset splits (the task's, or the same problems in prose) and the SFT corpus drawn from
 * `corpusRng`. The pretrain command and the tests of a committed config build it here, so a test checks
 * the corpus the checkpoint is trained on.
 */
export function pretrainData(config: PretrainConfig, corpusRng: Rng) {
  const prose = config.data.format === 'prose';
  const tokenizer = prose
    ? Tokenizer.fromPieces(prosePieces())
    : Tokenizer.fromAlphabet(config.data.mix.compositeRate > 0 ? COMPOSITE_TASK_ALPHABET : TASK_ALPHABET);
  const splits = (prose ? buildProseDatasets : buildDatasets)(config.data.datasetSeed, { train: config.data.trainProblems });
  const corpus = taskCorpus(
    splits.train.map(problemFromRecord),
    tokenizer,
    corpusRng,
    config.data.corpusRefreshEpochs,
    config.data.mix,
    prose ? config.data.prose : null,
    config.data.multiAttempt,
  );
  return { tokenizer, splits, corpus };
}
