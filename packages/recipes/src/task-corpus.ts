import type { Rng } from '@rred/core';
import {
  multiAttemptSftExamples,
  proseSftExamples,
  sftExamples,
  tokenizeExample,
  type MultiAttemptMix,
  type ProseMix,
  type Problem,
  type SequenceTokenizer,
  type SftConfig,
} from '@rred/tasks';
import type { SftCorpus, SftExample } from '@rred/training';

/**
 * The task SFT corpus as token examples. With `refreshEachEpoch`, epoch e draws its solutions
 * (orders, errors, `wait` corrections) from `rng.fork('epoch-e')`, so the model sees varied solution
 * paths for the same problems; otherwise every epoch reuses epoch 0's draws. One epoch is kept in memory.
 * `mix` is the example mix (@rred/tasks SftConfig: orders, errors, composite forms, early exits); with `prose`
 * the examples are the free-form bed's (proseSftExamples: the same mix, written in varied phrasings); with `multiAttempt`
 * some are multi-attempt examples (multiAttemptSftExamples: failed attempts, the verifier's feedback, a fix).
 */
export function taskCorpus(
  problems: readonly Problem[],
  tokenizer: SequenceTokenizer,
  rng: Rng,
  refreshEachEpoch: boolean,
  mix: SftConfig,
  prose: ProseMix | null = null,
  multiAttempt: MultiAttemptMix | null = null,
): SftCorpus {
  let cachedEpoch = -1;
  let cached: SftExample[] = [];
  return {
    size: problems.length,
    example(epoch: number, index: number): SftExample {
      const e = refreshEachEpoch ? epoch : 0;
      if (e !== cachedEpoch) {
        const epochRng = rng.fork(`epoch-${e}`);
        if (multiAttempt) cached = multiAttemptSftExamples(problems, mix, multiAttempt, tokenizer, epochRng);
        else {
          const examples = prose ? proseSftExamples(problems, mix, prose, epochRng) : sftExamples(problems, mix, epochRng);
          cached = examples.map((ex) => tokenizeExample(tokenizer, ex));
        }
        cachedEpoch = e;
      }
      return cached[index];
    },
  };
}
