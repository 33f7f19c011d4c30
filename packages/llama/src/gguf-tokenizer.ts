import { UserError } from '@rred/core';
import { byteLevelBytes, type TextTokenizer } from '@rred/text';
import type { LlamaLM } from './llama-lm';
import { LlamaWorker } from './worker-client';

type Engine = Pick<LlamaWorker, 'tokenizeSync' | 'pieces' | 'readInfo'>;

/** llama_token_type of control tokens (their text is the token's whole text, not byte-level). */
const CONTROL = 3;
const USER_DEFINED = 4;

/**
 * A GGUF model's own vocabulary as a TextTokenizer, through the binding: encode is llama.cpp's tokenizer
 * (special-token text parsed; synchronous: the worker answers through shared memory), token bytes come
 * from the file's `tokenizer.ggml.tokens` read as llama.cpp does: byte-level text for BPE vocabularies
 * (`gpt2`: GPT-2, Qwen, Llama 3 and the lab's exports), `▁` as a space and `<0xHH>` as a byte for
 * SentencePiece ones (`llama`), and llama.cpp's own piece for anything else.
 */
export function ggufTokenizer(lm: LlamaLM): Promise<TextTokenizer> {
  return tokenizerOf(lm.engine, lm.config.modelPath);
}

/**
 * A GGUF file's vocabulary alone (llama.cpp's vocab-only load: no weights, no context), e.g. a model's
 * tokenizer without its model. `dispose` stops its worker.
 */
export async function ggufVocabulary(modelPath: string): Promise<{ tokenizer: TextTokenizer; dispose: () => Promise<void> }> {
  const worker = new LlamaWorker();
  try {
    await worker.loadVocabulary(modelPath);
    return { tokenizer: await tokenizerOf(worker, modelPath), dispose: () => worker.dispose() };
  } catch (err) {
    await worker.dispose().catch(() => undefined);
    throw err;
  }
}

async function tokenizerOf(engine: Engine, modelPath: string): Promise<TextTokenizer> {
  const info = await engine.readInfo(modelPath);
  const ggml = (info.metadata.tokenizer as { ggml?: { model?: string; tokens?: string[]; token_type?: number[] } } | undefined)?.ggml;
  const tokens = ggml?.tokens;
  if (!tokens) throw new UserError(`${modelPath}: no tokenizer.ggml.tokens in the file; it has no vocabulary to tokenize with`);
  const types = ggml?.token_type ?? [];
  const pieces = ggml?.model === 'gpt2' || ggml?.model === 'llama' ? null : await engine.pieces();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder('utf-8');
  const bytesOf = (id: number): Uint8Array => {
    if (!(Number.isInteger(id) && id >= 0 && id < tokens.length))
      throw new UserError(`${modelPath}: token id ${id} is outside 0..${tokens.length - 1}`);
    const t = tokens[id];
    if (types[id] === CONTROL || types[id] === USER_DEFINED) return encoder.encode(t);
    if (pieces) return encoder.encode(pieces[id]);
    if (ggml?.model === 'gpt2') return byteLevelBytes(t) ?? encoder.encode(t);
    const hex = /^<0x([0-9A-Fa-f]{2})>$/.exec(t);
    return hex ? Uint8Array.of(parseInt(hex[1], 16)) : encoder.encode(t.replace(/\u2581/g, ' '));
  };
  const byText = new Map<string, number>();
  tokens.forEach((t, id) => {
    if (types[id] === CONTROL || types[id] === USER_DEFINED) byText.set(t, id);
  });
  return {
    kind: 'gguf',
    vocabSize: tokens.length,
    encode: (text) => engine.tokenizeSync(text),
    decode: (ids) => {
      const parts = ids.map(bytesOf);
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      return decoder.decode(all);
    },
    tokenBytes: bytesOf,
    tokenId: (text) => {
      const special = byText.get(text);
      if (special !== undefined) return special;
      const ids = engine.tokenizeSync(text);
      return ids.length === 1 ? ids[0] : null;
    },
  };
}
