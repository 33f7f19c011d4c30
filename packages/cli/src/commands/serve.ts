import * as path from 'node:path';
import { repoRoot, UserError } from '@rred/core';
import { engineInfo, initEngine } from '@rred/engine';
import { checkpointHash, EMBEDDED_CHECKPOINT, TransformerLM } from '@rred/lm';
import { checkListenHost, RRED_CHAT, startServer } from '@rred/remote';
import type { Command } from '../command';

/** A flag's integer value in [lo, hi], or the default when absent; one-line error naming the flag otherwise. */
function intFlag(value: string | undefined, flag: string, fallback: number, lo: number, hi: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= lo && n <= hi))
    throw new UserError(`rred serve: --${flag} ${value}: expected an integer in ${lo}..${hi}`);
  return n;
}

export const serve: Command = {
  name: 'serve',
  summary: 'serve a checkpoint over SGLang-style POST /generate and OpenAI/vLLM-style POST /v1/completions on localhost',
  flags: {
    checkpoint: { type: 'string', value: 'FILE', path: true, description: 'checkpoint to serve', default: EMBEDDED_CHECKPOINT },
    port: { type: 'string', value: 'PORT', description: 'TCP port (0 = any free port)', default: '30000' },
    host: {
      type: 'string',
      value: 'HOST',
      description: 'address to listen on; one that is not loopback needs --allow-remote (the server has no authentication)',
      default: '127.0.0.1',
    },
    'allow-remote': {
      type: 'boolean',
      description: 'allow a --host that is not loopback (anyone who reaches it can use the model); prints a warning',
    },
    name: { type: 'string', value: 'NAME', description: 'model name reported by GET /v1/models (default: the checkpoint file name)' },
    seed: { type: 'string', value: 'SEED', description: 'seeds the seed of sampling requests that send none', default: '0' },
    quiet: { type: 'boolean', description: 'do not log one line per request' },
  },
  run: async (args, ctx) => {
    const host = (args.flags.host as string | undefined) ?? '127.0.0.1';
    const allowRemote = Boolean(args.flags['allow-remote']);
    const loopback = checkListenHost(host, allowRemote); // before the model loads
    const file = (args.flags.checkpoint as string | undefined) ?? path.join(repoRoot(), EMBEDDED_CHECKPOINT);
    const port = intFlag(args.flags.port as string | undefined, 'port', 30000, 0, 65535);
    const seed = intFlag(args.flags.seed as string | undefined, 'seed', 0, 0, 2 ** 32 - 1);
    const identity = checkpointHash(file);
    await initEngine({ quiet: true });
    const lm = TransformerLM.fromCheckpoint(file);
    const name = (args.flags.name as string | undefined) ?? path.basename(file).replace(/\.ckpt$/, '');
    const quiet = Boolean(args.flags.quiet);
    const server = await startServer({
      lm,
      name,
      checkpointHash: identity,
      chat: RRED_CHAT,
      host,
      allowRemote,
      port,
      seed,
      onRequest: quiet ? undefined : (line) => process.stderr.write(`${line}\n`),
    });
    if (!loopback)
      process.stderr.write(
        `rred serve: WARNING: listening on ${host}, not loopback: anyone who can reach this address can use the model (no authentication)\n`,
      );
    ctx.out(
      `rred serve: '${name}' (checkpoint ${identity.slice(0, 12)}, backend ${engineInfo().backend}) on ${server.url}\n` +
        '  POST /generate (SGLang), POST /v1/completions (vLLM subset), GET /v1/models, POST /tokenize, GET /rred/tokenizer; Ctrl-C stops\n',
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void server.close().then(resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    lm.dispose();
  },
};
