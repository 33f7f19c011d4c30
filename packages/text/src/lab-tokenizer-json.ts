import type { Tokenizer } from '@rred/lm';
import { BYTE_TO_UNICODE } from './byte-level';

/**
 * The lab's character tokenizer as a Hugging Face tokenizer.json: a byte-level BPE without merges (each
 * alphabet character its own token, in GPT-2's byte-to-unicode form, with the lab's ids) and the special
 * tokens as added tokens. The same vocabulary `rred export-gguf` writes into a GGUF, so a tokenizer
 * library reading this file maps text to the ids the exported model was trained on.
 */
export function labTokenizerJson(tokenizer: Tokenizer): Record<string, unknown> {
  const specials = [tokenizer.pad, tokenizer.bos, tokenizer.eos, tokenizer.think, tokenizer.endThink];
  const vocab: Record<string, number> = {};
  for (let id = 0; id < tokenizer.vocabSize; id++) {
    const text = tokenizer.tokenText(id);
    vocab[specials.includes(id) ? text : Array.from(new TextEncoder().encode(text), (b) => BYTE_TO_UNICODE[b]).join('')] = id;
  }
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((id) => ({
      id,
      content: tokenizer.tokenText(id),
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  };
}
