import { UserError } from '@rred/core';
import { LlamaWorker } from './worker-client';

describe('LlamaWorker without its binding (node-llama-cpp is optional)', () => {
  it('refuses to load with one line that says what is missing and what to use instead', async () => {
    const worker = new LlamaWorker('no-such-llama-binding');
    const err = await worker.load({ modelPath: 'x.gguf', threads: 1, kvCacheType: 'F32' }).catch((e: unknown) => e);
    await worker.dispose().catch(() => undefined);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      /^llama\.cpp engine unavailable: no-such-llama-binding is not installed or cannot load \(.*\); node-llama-cpp 3\.21\.1 is an optional dependency/,
    );
    expect((err as Error).message).not.toContain('\n');
  });
});
