import type { SftExample } from '@rred/training';
import { promptTokens, type SequenceTokenizer } from '@rred/tasks';

export type { SequenceTokenizer };

/**
 * Layout `<bos>` problem `<think>` thinking `</think>` answer `<eos>` split into the prompt (up to and
 * including `<think>`) and the trained completion.
 */
export function tokenizeExample(
  tokenizer: SequenceTokenizer,
  example: { prompt: string; thinking: string; answer: string },
): SftExample {
  return {
    prompt: promptTokens(tokenizer, example.prompt),
    completion: [...tokenizer.encode(example.thinking), tokenizer.endThink, ...tokenizer.encode(example.answer), tokenizer.eos],
  };
}
