import type { Rng } from '@rred/core';
import { sftConfig, sftExamples, tokenizeExample, type Problem, type SequenceTokenizer } from '@rred/tasks';
import type { SftCorpus, SftExample } from '@rred/training';

/**
 * The task SFT corpus as token examples. With `refreshEachEpoch`, epoch e draws its solutions
 * (orders, errors, `wait` corrections) from `rng.fork('epoch-e')`, so the model sees varied solution
 * paths for the same problems; otherwise every epoch reuses epoch 0's draws. One epoch is kept in memory.
 */
export function taskCorpus(problems: readonly Problem[], tokenizer: SequenceTokenizer, rng: Rng, refreshEachEpoch: boolean): SftCorpus {
  const mix = sftConfig({});
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
