import type { Rng } from '@rred/core';
import { sftExamples, type Problem, type SftConfig } from '@rred/tasks';
import type { SftCorpus } from './sft';
import type { SftExample } from './batching';
import { tokenizeExample, type SequenceTokenizer } from './task-examples';

/**
 * The task SFT corpus as token examples. With `refreshEachEpoch`, epoch e draws its solutions
 * (orders, errors, `wait` corrections) from `rng.fork('epoch-e')`, so the model sees varied solution
 * paths for the same problems; otherwise every epoch reuses epoch 0's draws. One epoch is kept in memory.
 * `mix` is the example mix (@rred/tasks SftConfig: orders, errors, composite forms, early exits).
 */
export function taskCorpus(problems: readonly Problem[], tokenizer: SequenceTokenizer, rng: Rng, refreshEachEpoch: boolean, mix: SftConfig): SftCorpus {
  let cachedEpoch = -1;
  let cached: SftExample[] = [];
  return {
    size: problems.length,
    example(epoch: number, index: number): SftExample {
      const e = refreshEachEpoch ? epoch : 0;
      if (e !== cachedEpoch) {
        cached = sftExamples(problems, mix, rng.fork(`epoch-${e}`)).map((ex) => tokenizeExample(tokenizer, ex));
        cachedEpoch = e;
      }
      return cached[index];
    },
  };
}
