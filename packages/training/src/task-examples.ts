import type { SftExample } from './batching';
import { promptTokens, type SequenceTokenizer } from '@rred/evaluation';

export type { SequenceTokenizer };

/**
 * Layout `<bos>` problem `<think>` thinking `</think>` answer `<eos>` split into the prompt (up to and
 * including `<think>`) and the trained completion. `untrainedSpans` (character spans of the thinking)
 * and an early exit's `</think>` become the example's untrained completion positions; a span maps to
 * tokens through the token counts of the thinking's prefixes, so any prefix-stable tokenizer works.
 */
export function tokenizeExample(
  tokenizer: SequenceTokenizer,
  example: { prompt: string; thinking: string; answer: string; earlyExit?: boolean; untrainedSpans?: readonly [number, number][] },
): SftExample {
  const thinking = tokenizer.encode(example.thinking);
  const untrained: number[] = [];
  for (const [start, end] of example.untrainedSpans ?? []) {
    const from = tokenizer.encode(example.thinking.slice(0, start)).length;
    const to = tokenizer.encode(example.thinking.slice(0, end)).length;
    for (let i = from; i < to; i++) untrained.push(i);
  }
  if (example.earlyExit) untrained.push(thinking.length); // the `</think>` right after the cut thinking
  return {
    prompt: promptTokens(tokenizer, example.prompt),
    completion: [...thinking, tokenizer.endThink, ...tokenizer.encode(example.answer), tokenizer.eos],
    ...(untrained.length > 0 ? { untrained } : {}),
  };
}
