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
 * prompt (up to and including `<think>`) and the completion a trainer learns. `untrainedSpans` (character
 * spans of the thinking, e.g. a masked wrong line) and an early exit's `</think>` become `untrained`
 * completion positions (no loss); a span maps to tokens through the token counts of the thinking's
 * prefixes, so any prefix-stable tokenizer works.
 */
export function tokenizeExample(
  tokenizer: SequenceTokenizer,
  example: { prompt: string; thinking: string; answer: string; earlyExit?: boolean; untrainedSpans?: readonly [number, number][] },
): { prompt: number[]; completion: number[]; untrained?: number[] } {
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
