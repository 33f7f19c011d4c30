import * as os from 'os';
import * as path from 'path';
import { repoRoot } from '@rred/core';
import { describeLlama, exportedEmbedded } from '@rred/llama/testing';
import { z } from 'zod';
import { experimentSpec, parseExperimentArgs } from './cli-args';
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
