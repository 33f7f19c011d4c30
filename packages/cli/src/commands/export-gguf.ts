import { checkOutputFile, UserError } from '@rred/core';
import { exportGguf } from '@rred/llama';
import type { Command } from '../command';

export const exportGgufCommand: Command = {
  name: 'export-gguf',
  summary: "write a checkpoint as a GGUF file (llama.cpp's gpt2 architecture, F32 weights, its tokenizer as the vocabulary)",
  flags: {
    checkpoint: { type: 'string', value: 'FILE', path: true, description: 'the checkpoint to export (rred-lm-checkpoint)' },
    out: { type: 'string', value: 'FILE.gguf', path: true, description: 'the GGUF file to write (atomically)' },
  },
  run: async (args, ctx) => {
    const checkpoint = args.flags.checkpoint as string | undefined;
    const out = args.flags.out as string | undefined;
    if (!checkpoint) throw new UserError('export-gguf: --checkpoint FILE is required');
    if (!out) throw new UserError('export-gguf: --out FILE.gguf is required');
    if (!out.endsWith('.gguf')) throw new UserError(`export-gguf: --out ${out}: expected a file name ending in .gguf`);
    checkOutputFile(out, '--out'); // before any work: a regular file or a new name, in a writable directory
    const s = await exportGguf(checkpoint, out);
    ctx.out(`wrote ${s.out}: ${s.tensors} tensors, ${s.bytes} bytes, checkpoint ${s.checkpointHash.slice(0, 12)}\n`);
  },
};
