import * as os from 'os';
import * as path from 'path';
import { repoRoot } from '@rred/core';
import { describeLlama, exportedEmbedded } from '@rred/llama/testing';
import { z } from 'zod';
import { experimentSpec, parseExperimentArgs } from './cli-args';
import { loadDataset } from './dataset';
import { sharedModel } from './model';

describe('--model gguf:FILE', () => {
  const spec = experimentSpec('x', z.object({}).strict(), {}, '/nonexistent.json');

  it('names a GGUF file (relative to the repository root) run by llama.cpp, with no API', () => {
    expect(parseExperimentArgs(['--model', 'gguf:m/x.gguf'], spec).model).toEqual({
      url: `gguf:${path.join(repoRoot(), 'm/x.gguf')}`,
      api: 'gguf',
    });
    expect(parseExperimentArgs(['--model', 'gguf:/abs/x.gguf'], spec).model).toEqual({ url: 'gguf:/abs/x.gguf', api: 'gguf' });
    expect(() => parseExperimentArgs(['--model', 'gguf:/abs/x.gguf', '--model-api', 'openai'], spec)).toThrow(
      'x: --model-api openai: a gguf: model takes no API',
    );
    expect(() => parseExperimentArgs(['--model', 'gguf:/abs/x.bin'], spec)).toThrow(/expected gguf:FILE with a file name ending in \.gguf/);
  });
});

describeLlama('--model gguf: loads a lab export on llama.cpp', () => {
  it("loads the exported embedded checkpoint with the lab's tokenizer, identified by the file's hash", async () => {
    const file = await exportedEmbedded();
    const m = await sharedModel('unused', { url: `gguf:${file}`, api: 'gguf' });
    expect(m.checkpointHash).toMatch(/^gguf:[0-9a-f]{64}$/);
    expect(m.tags).toMatchObject({ 'model.api': 'gguf', 'model.name': 'embedded', checkpointHashCovers: 'gguf file' });
    expect(m.tags!['model.checkpointHash']).toMatch(/^[0-9a-f]{64}$/);
    expect(m.lm.tokenizer.encode('1+2')).toHaveLength(3);
    await (m.lm as unknown as { dispose(): Promise<void> }).dispose();
  });

  it('refuses a missing file with one line', async () => {
    const missing = path.join(os.tmpdir(), `rred-no-such-dir-${process.pid}`, 'none.gguf'); // never created
    await expect(sharedModel('unused', { url: `gguf:${missing}`, api: 'gguf' })).rejects.toThrow(
      `--model gguf:${missing}: cannot read (ENOENT)`,
    );
  });
});

describe('--dataset FILE --format gsm8k|math|jsonl', () => {
  const spec = experimentSpec('x', z.object({}).strict(), {}, '/nonexistent.json');
  const fixtures = path.join(repoRoot(), 'packages/text/fixtures');

  it('parses the format (default jsonl) and refuses a bad one or one without --dataset', () => {
    expect(parseExperimentArgs(['--dataset', '/d.jsonl'], spec).dataset).toEqual({ file: '/d.jsonl', verifier: null, format: 'jsonl' });
    expect(parseExperimentArgs(['--dataset', '/d.parquet', '--format', 'math'], spec).dataset).toMatchObject({ format: 'math' });
    expect(() => parseExperimentArgs(['--dataset', '/d.jsonl', '--format', 'csv'], spec)).toThrow(
      'x: --format csv: expected one of gsm8k, math, jsonl',
    );
    expect(() => parseExperimentArgs(['--format', 'gsm8k'], spec)).toThrow('x: --format gsm8k needs --dataset FILE');
  });

  it('loads GSM8K Parquet records with the math verifier, recorded in the tags', async () => {
    const data = await loadDataset({ file: path.join(fixtures, 'gsm8k.parquet'), verifier: null, format: 'gsm8k' }, 3);
    expect(data.records.map((r) => r.answer)).toEqual(['4', '0', '4']);
    expect(data.tags).toMatchObject({ 'dataset.format': 'gsm8k', 'dataset.verifier': 'math' });
    expect(data.verify('a=0+7=7\nb=2+2=4\n</think>4<eos>', '4', true)).toEqual({ reward: 1, answer: '4' });
    expect(data.verify('a=0+7=7\n</think>\\boxed{4}<eos>', '4', true).reward).toBe(1);
    expect(data.verify('a=0+7=7\n</think>5<eos>', '4', true).reward).toBe(0);
    expect(data.verify('a=0+7=7\n</think>4', '4', false).reward).toBe(0);
    await expect(loadDataset({ file: path.join(fixtures, 'math.jsonl'), verifier: null, format: 'gsm8k' }, 3)).rejects.toThrow(
      /math\.jsonl:1: field 'answer'/,
    );
  });
});
