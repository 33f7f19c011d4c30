import * as fs from 'node:fs';
import * as path from 'node:path';
import { TokenizerLoader } from '@lenml/tokenizers';
import { UserError } from '@rred/core';
import { byteLevelBytes } from './byte-level';
import type { TextTokenizer } from './tokenizer';

/** The tokenizer.json fields read here (the rest goes to the library as is). */
interface TokenizerJson {
  decoder?: { type?: string } | null;
  added_tokens?: { id: number; content: string }[];
}

/** A chat template and special tokens from tokenizer_config.json, when it has them. */
interface HfTokenizer extends TextTokenizer {
  readonly chatTemplate: string | null;
}

/**
 * A Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) through @lenml/tokenizers, a kept pure-JS
 * port of transformers.js's tokenizers: encode parses special-token text (no BOS/EOS added), decode keeps
 * special tokens and spaces exactly. Token bytes: byte-level vocabularies (decoder type ByteLevel: GPT-2,
 * Qwen, DeepSeek, Llama 3) map each token's characters back to bytes; added tokens are their UTF-8 content;
 * other vocabularies decode the token alone.
 */
export function hfTokenizer(tokenizerJson: unknown, tokenizerConfig: unknown = {}, source = 'tokenizer.json'): HfTokenizer {
  const json = tokenizerJson as TokenizerJson;
  if (!json || typeof json !== 'object' || !('model' in json))
    throw new UserError(`${source}: expected a Hugging Face tokenizer.json object with a 'model' field`);
  let tok: ReturnType<typeof TokenizerLoader.fromPreTrained>;
  try {
    tok = TokenizerLoader.fromPreTrained({ tokenizerJSON: json as never, tokenizerConfig: tokenizerConfig as never });
  } catch (err) {
    throw new UserError(`${source}: the tokenizer library refused it (${(err as Error).message.split('\n')[0]})`);
  }
  const added = new Map((json.added_tokens ?? []).map((t) => [t.id, t.content]));
  const addedByText = new Map((json.added_tokens ?? []).map((t) => [t.content, t.id]));
  const byteLevel = json.decoder?.type === 'ByteLevel';
  const vocab = (tok as unknown as { model: { vocab: string[] } }).model.vocab;
  const vocabSize = Math.max(vocab.length, ...[...added.keys()].map((id) => id + 1));
  const encoder = new TextEncoder();
  const decode = (ids: readonly number[]) => tok.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  const config = tokenizerConfig as { chat_template?: unknown };
  return {
    kind: 'hf',
    vocabSize,
    chatTemplate: typeof config.chat_template === 'string' ? config.chat_template : null,
    encode: (text) => tok.encode(text, { add_special_tokens: false }),
    decode,
    tokenBytes: (id) => {
      if (!(Number.isInteger(id) && id >= 0 && id < vocabSize))
        throw new UserError(`${source}: token id ${id} is outside 0..${vocabSize - 1}`);
      const special = added.get(id);
      if (special !== undefined) return encoder.encode(special);
      if (byteLevel) {
        const bytes = byteLevelBytes(vocab[id] ?? '');
        if (bytes) return bytes;
      }
      return encoder.encode(decode([id]));
    },
    tokenId: (text) => {
      const special = addedByText.get(text);
      if (special !== undefined) return special;
      const ids = tok.encode(text, { add_special_tokens: false });
      return ids.length === 1 ? ids[0] : null;
    },
  };
}

/** Reads tokenizer.json (and tokenizer_config.json beside it, when present). Errors name the file. */
export function loadHfTokenizer(file: string): HfTokenizer {
  const read = (f: string): unknown => {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch (err) {
      throw new UserError(`${f}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new UserError(`${f}: not valid JSON (${(err as Error).message})`);
    }
  };
  const configFile = path.join(path.dirname(file), 'tokenizer_config.json');
  return hfTokenizer(read(file), fs.existsSync(configFile) ? read(configFile) : {}, file);
}
