/**
 * GPT-2's byte-level alphabet: every byte 0..255 as a printable code point, so a byte-level BPE vocabulary
 * (GPT-2, Qwen, DeepSeek, Llama 3) writes any byte string as text. Printable Latin-1 bytes (33..126,
 * 161..172, 174..255) map to themselves; the others, in order, to 256, 257, ... (space → U+0120 'Ġ',
 * newline → U+010A 'Ċ').
 */
export const BYTE_TO_UNICODE: readonly string[] = (() => {
  const keep = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const out: string[] = [];
  let n = 0;
  for (let b = 0; b < 256; b++) out.push(String.fromCodePoint(keep(b) ? b : 256 + n++));
  return out;
})();

const UNICODE_TO_BYTE = new Map(BYTE_TO_UNICODE.map((ch, b) => [ch, b]));

/** A byte-level token's text → its bytes; null when a character is outside the byte alphabet. */
export function byteLevelBytes(token: string): Uint8Array | null {
  const out: number[] = [];
  for (const ch of token) {
    const b = UNICODE_TO_BYTE.get(ch);
    if (b === undefined) return null;
    out.push(b);
  }
  return Uint8Array.from(out);
}

/** Bytes → their byte-level text. */
export function byteLevelText(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => BYTE_TO_UNICODE[b]).join('');
}
