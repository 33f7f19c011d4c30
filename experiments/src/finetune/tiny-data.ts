/**
 * Test support: ChildData over a tiny random transformer (1 layer, d = 16, context 40) and six
 * one-line problems, so the real trainer, evaluation and store paths run in seconds on the cpu
 * backend. A random model never answers right, so every reward is 0 (tests rely on that).
 */
import { Rng } from '@rred/core';
import { createTransformer, Tokenizer, TransformerLM } from '@rred/lm';
import { TASK_ALPHABET, type TaskRecord } from '@rred/tasks';
import type { ChildData } from './child';

const tinyRecord = (i: number): TaskRecord =>
  ({
    id: `p${i}`,
    problem: `a=${i % 10}+1;?a`,
    answer: String((i + 1) % 10),
    solution: `a=${i % 10}+1=${(i + 1) % 10}`,
    split: 'train',
    meta: {},
  }) as TaskRecord;

/** Train on p0..p5, validate on p0, p1; eval-easy = p2, p3 and eval-hard = p4, p5. */
export function tinyChildData(): ChildData {
  const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
  const records = Array.from({ length: 6 }, (_, i) => tinyRecord(i));
  return {
    loadModel: () =>
      new TransformerLM(
        createTransformer({ vocabSize: tokenizer.vocabSize, contextLength: 40, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 }, new Rng(0)),
        tokenizer,
      ),
    train: records,
    validation: records.slice(0, 2),
    evalSplits: { 'eval-easy': records.slice(2, 4), 'eval-hard': records.slice(4, 6) },
  };
}
