import type { Tokenizer } from '@rred/lm';

/**
 * What the text layer needs of a tokenizer, whatever its kind: the lab's characters (`charTokenizer`), a
 * Hugging Face tokenizer.json (`hfTokenizer`), or a GGUF model's own vocabulary (@rred/llama's
 * `ggufTokenizer`). Ids are the model's; special-token text (`<think>`) encodes to its one id.
 */
export interface TextTokenizer {
  readonly kind: 'chars' | 'hf' | 'gguf';
  readonly vocabSize: number;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /**
   * The UTF-8 bytes token `id` contributes to decoded text: their concatenation over ids is decode(ids)'s
   * bytes. A byte-level token may hold part of a character.
   */
  tokenBytes(id: number): Uint8Array;
  /** The id of a text that is exactly one token (a special token such as `</think>`), else null. */
  tokenId(text: string): number | null;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8');

/** The lab's character tokenizer as a TextTokenizer (the same ids). */
export function charTokenizer(tokenizer: Tokenizer): TextTokenizer {
  const byText = new Map(Array.from({ length: tokenizer.vocabSize }, (_, id) => [tokenizer.tokenText(id), id]));
  return {
    kind: 'chars',
    vocabSize: tokenizer.vocabSize,
    encode: (text) => tokenizer.encode(text),
    decode: (ids) => tokenizer.decode(ids),
    tokenBytes: (id) => utf8.encode(tokenizer.tokenText(id)),
    tokenId: (text) => byText.get(text) ?? null,
  };
}

/** One token's text for segmentation (a partial character reads as U+FFFD; markers are whole characters). */
export function tokenText(tokenizer: TextTokenizer): (id: number) => string {
  return (id) => utf8Decoder.decode(tokenizer.tokenBytes(id));
}

/**
 * The decoded text of `ids` and each token's [start, end) in it (UTF-16 offsets). A token boundary inside
 * a multi-byte character moves to that character's end, so the spans tile the text exactly: the text of
 * tokens [a, b) is text.slice(spans[a][0], spans[b − 1][1]), and consecutive ranges join to the whole.
 */
export function tokenSpans(tokenizer: TextTokenizer, ids: readonly number[]): { text: string; spans: [number, number][] } {
  const pieces = ids.map((id) => tokenizer.tokenBytes(id));
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(total);
  const ends: number[] = [];
  let at = 0;
  for (const p of pieces) {
    bytes.set(p, at);
    at += p.length;
    ends.push(at);
  }
  const text = utf8Decoder.decode(bytes);
  // UTF-16 offset of each character boundary, by byte offset (a byte inside a character rounds up to its end).
  const charAt = new Int32Array(total + 1);
  let byte = 0;
  let unit = 0;
  for (const ch of text) {
    const n = utf8.encode(ch).length;
    unit += ch.length;
    for (let k = 1; k <= n; k++) charAt[byte + k] = unit;
    byte += n;
  }
  let start = 0;
  const spans = ends.map((end): [number, number] => {
    const span: [number, number] = [start, charAt[end]];
    start = charAt[end];
    return span;
  });
  return { text, spans };
}
