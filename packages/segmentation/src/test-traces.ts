/** Random traces for the segmentation tests (not part of the public API). */
import type { Rng } from '@rred/core';
import type { Trace } from '@rred/lm';

/** Char-level vocabulary like the project's tokenizer: special tokens first, then characters. */
export const TEST_VOCAB: string[] = ['<bos>', '<think>', '</think>', '<eos>', ...'0123456789+-*=;?\n abcdefghijklntuwW'];
const id = (s: string): number => TEST_VOCAB.indexOf(s);

const PIECES = ['a=3+4=7', 'b=7*2=4', 'c=5+4=9', 'wait', 'but', 'waiting', 'abut', ' ', '\n', '\n', 'd=1-2=9'];

/** Token ids of a text, one per character. */
function encode(text: string): number[] {
  return [...text].map((ch) => {
    const i = id(ch);
    if (i < 0) throw new Error(`character ${JSON.stringify(ch)} not in the test vocabulary`);
    return i;
  });
}

/** A trace whose thinking text is `thinking`, with given or random per-token signals. */
export function traceFromText(thinking: string, rng: Rng, signals: { entropies?: number[]; logprobs?: number[] } = {}): Trace {
  const think = encode(thinking);
  const completion = [...think, id('</think>'), id('7'), id('<eos>')];
  const n = completion.length;
  return {
    problemId: 'test',
    prompt: [id('<bos>'), ...encode('a=3+4;?a'), id('<think>')],
    completion,
    logprobs: signals.logprobs
      ? [...signals.logprobs, ...Array(n - think.length).fill(-0.1)]
      : completion.map(() => Math.log(0.02 + 0.98 * rng.next())),
    entropies: signals.entropies ? [...signals.entropies, ...Array(n - think.length).fill(0.5)] : completion.map(() => 3 * rng.next()),
    thinkEnd: think.length,
    answer: '7',
    reward: 1,
    text: `${thinking}</think>7<eos>`,
  };
}

/** A random trace of 0..maxLen thinking tokens made of task-like pieces and marker words. */
export function randomTrace(rng: Rng, maxLen = 160): Trace {
  let text = '';
  const target = rng.int(0, maxLen);
  while (text.length < target) text += rng.pick(PIECES);
  text = text.slice(0, target);
  const trace = traceFromText(text, rng);
  // occasional ties in entropy, to exercise tie-breaking
  if (rng.next() < 0.3) for (let t = 0; t < trace.entropies.length; t++) trace.entropies[t] = Math.round(trace.entropies[t]);
  return trace;
}
