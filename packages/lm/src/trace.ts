import type { Tokenizer } from './tokenizer';
import type { SampleResult, Trace } from './types';

/** Index of the first `</think>` in a completion, or completion.length when thinking never closed. */
export function thinkEndOf(completion: readonly number[], endThink: number): number {
  const i = completion.indexOf(endThink);
  return i < 0 ? completion.length : i;
}

/**
 * The decoded text between `</think>` and `<eos>` (or the end), or null when `</think>` is absent.
 * What counts as "the answer" inside it is the verifier's business; this only cuts the span.
 */
export function textAfterThink(tokenizer: Tokenizer, completion: readonly number[]): string | null {
  const end = thinkEndOf(completion, tokenizer.endThink);
  if (end === completion.length) return null;
  const after = completion.slice(end + 1);
  const eos = after.indexOf(tokenizer.eos);
  return tokenizer.decode(eos < 0 ? after : after.slice(0, eos));
}

interface TraceInput {
  problemId: string;
  /** Prompt tokens, ending with `<think>`. */
  prompt: number[];
  sample: SampleResult;
  /** The verifier's parsed answer (null when absent). */
  answer: string | null;
  /** The verifier's outcome ζ ∈ {0, 1}. */
  reward: number;
}

/** What buildTrace needs of a tokenizer (the lm Tokenizer has it): the `</think>` id and a decoder. */
export interface TraceTokenizer {
  readonly endThink: number;
  decode(ids: readonly number[]): string;
}

/**
 * Assembles a Trace from a prompt and one sampled completion; answer and reward come from the verifier.
 * The only Trace constructor: samplers, the GRPO trainer and the experiments all build theirs here.
 */
export function buildTrace(tokenizer: TraceTokenizer, input: TraceInput): Trace {
  const { sample } = input;
  return {
    problemId: input.problemId,
    prompt: input.prompt,
    completion: sample.tokens,
    logprobs: sample.logprobs,
    entropies: sample.entropies,
    thinkEnd: thinkEndOf(sample.tokens, tokenizer.endThink),
    answer: input.answer,
    reward: input.reward,
    text: tokenizer.decode(sample.tokens),
  };
}
