import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { createTransformer, EMBEDDED_CHECKPOINT, saveCheckpoint, Tokenizer, TransformerLM } from '@rred/lm';
import { describeLlama, exportedEmbedded } from '../testing';
import { exportGguf } from './export-gguf';
import { LlamaWorker } from './worker-client';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describeLlama('rred export-gguf, read back by node-llama-cpp (readGgufFileInfo)', () => {
  let worker: LlamaWorker;
  let local: TransformerLM;
  let file: string;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    worker = new LlamaWorker();
    local = TransformerLM.fromCheckpoint(path.join(ROOT, EMBEDDED_CHECKPOINT));
    file = await exportedEmbedded();
  });
  afterAll(async () => {
    await worker.dispose();
    local.dispose();
  });

  it('writes a gpt2 GGUF whose metadata and vocabulary llama.cpp reads as the checkpoint describes', async () => {
    const info = await worker.readInfo(file);
    const md = info.metadata as Record<string, Record<string, unknown>>;
    const c = local.transformer.config;
    expect(info.version).toBe(3);
    expect(md.general).toMatchObject({ architecture: 'gpt2', file_type: 0, alignment: 32, name: 'embedded' });
    expect(md.gpt2).toMatchObject({
      context_length: c.contextLength,
      embedding_length: c.dModel,
      feed_forward_length: c.dFF,
      block_count: c.nLayers,
      attention: { head_count: c.nHeads, layer_norm_epsilon: Math.fround(1e-5) },
    });
    const ggml = (md.tokenizer as { ggml: Record<string, unknown> }).ggml;
    const tokens = ggml.tokens as string[];
    expect(tokens.slice(0, 5)).toEqual(['<pad>', '<bos>', '<eos>', '<think>', '</think>']);
    // byte-level forms: newline U+010A, space U+0120, the rest of the alphabet as itself
    const tok = local.tokenizer;
    expect(tokens[tok.encode('\n')[0]]).toBe('\u010a');
    expect(tokens[tok.encode(' ')[0]]).toBe('\u0120');
    expect(tokens[tok.encode('7')[0]]).toBe('7');
    expect(tokens).toHaveLength(local.vocabSize);
    expect((ggml.token_type as number[]).slice(0, 6)).toEqual([3, 3, 3, 3, 3, 1]);
    expect(ggml).toMatchObject({ model: 'gpt2', bos_token_id: tok.bos, eos_token_id: tok.eos, merges: [] });
  });

  it('stores every tensor under its llama.cpp name with ggml shapes, tied head (no output.weight), weights exact', async () => {
    const info = await worker.readInfo(file);
    const { dModel: C, dFF: F, vocabSize: V, contextLength: L } = local.transformer.config;
    const byName = new Map(info.tensors.map((t) => [t.name, t]));
    expect(info.tensors).toHaveLength(2 + 12 * local.transformer.config.nLayers + 2);
    expect(byName.has('output.weight')).toBe(false);
    expect(byName.get('token_embd.weight')!.ne).toEqual([C, V]);
    expect(byName.get('position_embd.weight')!.ne).toEqual([C, L]);
    expect(byName.get('blk.0.attn_qkv.weight')!.ne).toEqual([C, 3 * C]);
    expect(byName.get('blk.3.ffn_down.weight')!.ne).toEqual([F, C]);
    expect(info.tensors.every((t) => t.type === 0 && t.offset % 32 === 0)).toBe(true);
    // the data: the QKV weight as ggml reads it, element (out j, in i) at j·C + i, is the lab's W[i][j]
    const bytes = fs.readFileSync(file);
    const dataStart = bytes.length - info.tensors.reduce((n, t) => n + Math.ceil((t.ne.reduce((a, b) => a * b, 1) * 4) / 32) * 32, 0);
    const read = (name: string, index: number) => bytes.readFloatLE(dataStart + byName.get(name)!.offset + 4 * index);
    const w = local.transformer.params.get('blocks.0.attn.wQkv')!.dataSync();
    for (const [i, j] of [
      [0, 0],
      [5, 200],
      [C - 1, 3 * C - 1],
      [17, 3],
    ])
      expect(read('blk.0.attn_qkv.weight', j * C + i)).toBe(w[i * 3 * C + j]);
    const e = local.transformer.params.get('tokenEmbedding')!.dataSync();
    expect(read('token_embd.weight', 7 * C + 11)).toBe(e[7 * C + 11]);
  });

  it('refuses what it cannot export with one-line errors, and writes nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-gguf-bad-'));
    try {
      const out = path.join(dir, 'x.gguf');
      await expect(exportGguf(path.join(dir, 'missing.ckpt'), out)).rejects.toThrow(/checkpoint .*missing\.ckpt: file not found/);
      const tokenizer = Tokenizer.fromAlphabet('01');
      const relu = createTransformer(
        { vocabSize: tokenizer.vocabSize, contextLength: 8, dModel: 8, nLayers: 1, nHeads: 2, dFF: 16, activation: 'relu' },
        new Rng(1),
      );
      saveCheckpoint(path.join(dir, 'relu.ckpt'), { tokenizer, transformer: relu });
      relu.dispose();
      await expect(exportGguf(path.join(dir, 'relu.ckpt'), out)).rejects.toThrow(
        /activation 'relu'; llama.cpp's gpt2 architecture computes GELU/,
      );
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
