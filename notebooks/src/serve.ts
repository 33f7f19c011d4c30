/**
 * `npx nx run notebooks:serve [-- --port N] [--dir DIR]`: serves the built site on 127.0.0.1 only
 * (default port 4173; 0 picks a free one) until Ctrl-C. The nx target builds the site first.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseCommandLine, repoRoot, runMain, UserError } from '@rred/core';
import { serveDirectory } from './static-server';

const SPEC = {
  name: 'notebooks:serve',
  usage: 'npx nx run notebooks:serve --',
  summary: 'Serves the built report site on 127.0.0.1 only, until Ctrl-C.',
  flags: {
    port: { type: 'string', value: 'N', description: 'TCP port; 0 picks a free one', default: '4173' },
    dir: { type: 'string', value: 'DIR', path: true, description: 'the built site', default: 'notebooks/dist' },
  },
} as const;

runMain(async () => {
  const flags = parseCommandLine(process.argv.slice(2), SPEC).flags;
  const portText = flags.port ?? '4173';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UserError(`notebooks:serve: --port got '${portText}', expected an integer in [0, 65535]`);
  const dir = path.resolve(flags.dir ?? path.join(repoRoot(), 'notebooks', 'dist'));
  if (!fs.existsSync(path.join(dir, 'index.html')))
    throw new UserError(`notebooks:serve: no site in ${dir}; build it with npx nx run notebooks:build`);
  let server;
  try {
    server = await serveDirectory(dir, port);
  } catch (err) {
    throw new UserError(`notebooks:serve: cannot listen on 127.0.0.1:${port} (${(err as Error).message}); pick another --port`);
  }
  process.stderr.write(`notebooks: serving ${path.relative(process.cwd(), dir) || dir}/ at ${server.url} (loopback only; Ctrl-C stops)\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
});
