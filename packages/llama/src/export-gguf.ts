import * as path from 'node:path';
import { UserError } from '@rred/core';
import { initEngine } from '@rred/engine';
import { byteLevelText } from '@rred/text';
import { checkpointHash, TransformerLM, verifyCheckpoint, type ModelConfig, type Tokenizer } from '@rred/lm';
import { writeGguf, type GgufTensor, type GgufValue } from './gguf';

/**
 * The lab's checkpoint as a llama.cpp model of the `gpt2` architecture (pre-norm blocks, learned
 * positions, LayerNorm ε = 1e-5, fused QKV, GELU MLP), F32 weights. Tensor names and ggml shapes
 * (ne[0] contiguous), with the lab's row-major shapes (transformer.ts `parameterShapes`):
 *   token_embd.weight    ne [C, V]   = tokenEmbedding [V, C] as is
 *   position_embd.weight ne [C, L]   = positionEmbedding [L, C] as is
 *   blk.i.attn_norm.{weight,bias} [C]       = ln1.{gamma,beta}
 *   blk.i.attn_qkv.weight ne [C, 3C] = attn.wQkvᵀ (the lab computes x·W with W [C, 3C]; ggml stores
 *                                      one row of C inputs per output); columns q | k | v, heads
 *                                      contiguous inside each (as splitHeads reads them; llama.cpp's
 *                                      gpt2 graph views the same layout)
 *   blk.i.attn_output.weight ne [C, C] = attn.wOutᵀ,  blk.i.ffn_norm = ln2
 *   blk.i.ffn_up.weight ne [C, F] = mlp.wInᵀ,  blk.i.ffn_down.weight ne [F, C] = mlp.wOutᵀ (biases as is)
 *   output_norm.{weight,bias} = lnFinal.{gamma,beta}
 * The head is tied (logits = h·Eᵀ), as every lab checkpoint is: no `output.weight` is written and
 * llama.cpp uses token_embd for the head. A checkpoint with its own head would add `output.weight`.
 *
 * What the file cannot fix in llama.cpp's arithmetic (measured in llama-lm.test.ts): its GELU is the
 * same tanh form but read from a 65,536-entry FP16 table (ggml's GELU lookup), and its KV cache is F16
 * unless the context asks for F32 (LlamaLM does). What it does set: F32 weights (no quantisation), the
 * LayerNorm ε and the head count, and the train context length (the position table's size) that
 * LlamaLM uses as its context size.
 *
 * Vocabulary: a BPE vocabulary without merges (`tokenizer.ggml.model` gpt2), so llama.cpp's tokenizer
 * maps each alphabet character to its own id, as the lab's; characters are written in GPT-2's
 * byte-to-unicode form (space as U+0120, newline as U+010A) and the special tokens as control tokens.
 * The lab tokenizer's JSON and the checkpoint's identity hash ride along as `rred.*` keys.
 */

/** Token type ids of `tokenizer.ggml.token_type` (llama_token_type). */
const NORMAL = 1;
const CONTROL = 3;

/** The vocabulary in llama.cpp's form: token texts (byte-level), types, and the lab's special ids. */
function vocabulary(tokenizer: Tokenizer): { tokens: string[]; types: number[] } {
  const specials = new Set([tokenizer.pad, tokenizer.bos, tokenizer.eos, tokenizer.think, tokenizer.endThink]);
  const tokens: string[] = [];
  const types: number[] = [];
  for (let id = 0; id < tokenizer.vocabSize; id++) {
    const text = tokenizer.tokenText(id);
    if (specials.has(id)) {
      tokens.push(text);
      types.push(CONTROL);
    } else {
      tokens.push(byteLevelText(Buffer.from(text, 'utf8')));
      types.push(NORMAL);
    }
  }
  return { tokens, types };
}

/** Row-major [rows, cols] → its transpose, row-major [cols, rows]. */
function transpose(values: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = values[r * cols + c];
  return out;
}

/** GGUF tensors of a transformer, given its weights by lab name. */
function gpt2Tensors(config: ModelConfig, weight: (name: string) => Float32Array): GgufTensor[] {
  const { vocabSize: V, contextLength: L, dModel: C, dFF: F } = config;
  const t = (name: string, ne: number[], data: Float32Array): GgufTensor => ({ name, ne, data });
  const out = [t('token_embd.weight', [C, V], weight('tokenEmbedding')), t('position_embd.weight', [C, L], weight('positionEmbedding'))];
  for (let i = 0; i < config.nLayers; i++) {
    const w = (n: string) => weight(`blocks.${i}.${n}`);
    const b = `blk.${i}.`;
    out.push(
      t(`${b}attn_norm.weight`, [C], w('ln1.gamma')),
      t(`${b}attn_norm.bias`, [C], w('ln1.beta')),
      t(`${b}attn_qkv.weight`, [C, 3 * C], transpose(w('attn.wQkv'), C, 3 * C)),
      t(`${b}attn_qkv.bias`, [3 * C], w('attn.bQkv')),
      t(`${b}attn_output.weight`, [C, C], transpose(w('attn.wOut'), C, C)),
      t(`${b}attn_output.bias`, [C], w('attn.bOut')),
      t(`${b}ffn_norm.weight`, [C], w('ln2.gamma')),
      t(`${b}ffn_norm.bias`, [C], w('ln2.beta')),
      t(`${b}ffn_up.weight`, [C, F], transpose(w('mlp.wIn'), C, F)),
      t(`${b}ffn_up.bias`, [F], w('mlp.bIn')),
      t(`${b}ffn_down.weight`, [F, C], transpose(w('mlp.wOut'), F, C)),
      t(`${b}ffn_down.bias`, [C], w('mlp.bOut')),
    );
  }
  out.push(t('output_norm.weight', [C], weight('lnFinal.gamma')), t('output_norm.bias', [C], weight('lnFinal.beta')));
  return out;
}

/** GGUF metadata of a `gpt2` model with the lab's config and vocabulary. */
function gpt2Metadata(config: ModelConfig, tokenizer: Tokenizer, name: string, hash: string): [string, GgufValue][] {
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const str = (value: string): GgufValue => ({ type: 'string', value });
  const { tokens, types } = vocabulary(tokenizer);
  return [
    ['general.architecture', str('gpt2')],
    ['general.name', str(name)],
    ['general.file_type', u32(0)], // LLAMA_FTYPE_ALL_F32
    ['general.alignment', u32(32)],
    ['gpt2.context_length', u32(config.contextLength)],
    ['gpt2.embedding_length', u32(config.dModel)],
    ['gpt2.feed_forward_length', u32(config.dFF)],
    ['gpt2.block_count', u32(config.nLayers)],
    ['gpt2.attention.head_count', u32(config.nHeads)],
    ['gpt2.attention.layer_norm_epsilon', { type: 'f32', value: 1e-5 }], // layers.ts layerNorm
    ['tokenizer.ggml.model', str('gpt2')],
    ['tokenizer.ggml.pre', str('default')],
    ['tokenizer.ggml.tokens', { type: 'array', of: 'string', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'array', of: 'i32', value: types }],
    ['tokenizer.ggml.merges', { type: 'array', of: 'string', value: [] }],
    ['tokenizer.ggml.bos_token_id', u32(tokenizer.bos)],
    ['tokenizer.ggml.eos_token_id', u32(tokenizer.eos)],
    ['tokenizer.ggml.padding_token_id', u32(tokenizer.pad)],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }], // the lab's prompts carry <bos> themselves
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
    ['rred.checkpoint_hash', str(hash)],
    ['rred.tokenizer', str(JSON.stringify(tokenizer.toJSON()))],
  ];
}

interface ExportSummary {
  out: string;
  bytes: number;
  tensors: number;
  checkpointHash: string;
}

/** `rred export-gguf`: reads and verifies a checkpoint, writes its GGUF (atomically; nothing on error). */
export async function exportGguf(checkpoint: string, out: string): Promise<ExportSummary> {
  verifyCheckpoint(checkpoint);
  await initEngine({ quiet: true });
  const hash = checkpointHash(checkpoint);
  const lm = TransformerLM.fromCheckpoint(checkpoint);
  try {
    const { config } = lm.transformer;
    if (config.activation !== 'gelu')
      throw new UserError(
        `export-gguf: ${checkpoint} has activation '${config.activation}'; llama.cpp's gpt2 architecture computes GELU, so only GELU checkpoints export`,
      );
    const weight = (name: string) => lm.transformer.params.get(name)!.dataSync() as Float32Array;
    const tensors = gpt2Tensors(config, weight);
    const name = path.basename(checkpoint).replace(/\.ckpt$/, '');
    const bytes = writeGguf(out, gpt2Metadata(config, lm.tokenizer, name, hash), tensors);
    return { out, bytes, tensors: tensors.length, checkpointHash: hash };
  } finally {
    lm.dispose();
  }
}
