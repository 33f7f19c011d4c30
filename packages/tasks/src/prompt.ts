/** The token ids of the sequence layout; satisfied by @rred/lm's Tokenizer. */
export interface SequenceTokenizer {
  readonly bos: number;
  readonly eos: number;
  readonly think: number;
  readonly endThink: number;
  readonly pad: number;
  encode(text: string): number[];
}

/** `<bos>` problem `<think>`: the prompt a model is sampled from (and conditioned on in SFT). */
export function promptTokens(tokenizer: SequenceTokenizer, problem: string): number[] {
  return [tokenizer.bos, ...tokenizer.encode(problem), tokenizer.think];
}

/**
 * The whole training sequence `<bos>` problem `<think>` thinking `</think>` answer `<eos>`, split into the
 * prompt (up to and including `<think>`) and the completion a trainer learns.
 */
export function tokenizeExample(
  tokenizer: SequenceTokenizer,
  example: { prompt: string; thinking: string; answer: string },
): { prompt: number[]; completion: number[] } {
  return {
    prompt: promptTokens(tokenizer, example.prompt),
    completion: [...tokenizer.encode(example.thinking), tokenizer.endThink, ...tokenizer.encode(example.answer), tokenizer.eos],
  };
}
