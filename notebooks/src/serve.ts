/**
 * `npx nx run notebooks:serve [-- --port N] [--dir DIR]`: serves the built site on 127.0.0.1 only
 * (default port 4173; 0 picks a free one) until Ctrl-C. The nx target builds the site first.
 */
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot, runMain, UserError } from '@rred/core';
import { parseFlags } from './flags';
import { serveDirectory } from './static-server';

runMain(async () => {
  // --port N (default 4173; 0 = any free port), --dir DIR (default notebooks/dist)
  const flags = parseFlags(process.argv.slice(2), ['port', 'dir'], 'notebooks:serve');
  const portText = flags.port ?? '4173';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new UserError(`notebooks:serve: --port got '${portText}', expected an integer in [0, 65535]`);
  const dir = path.resolve(flags.dir ?? path.join(repoRoot(), 'notebooks', 'dist'));
  if (!fs.existsSync(path.join(dir, 'index.html'))) throw new UserError(`notebooks:serve: no site in ${dir}; build it with npx nx run notebooks:build`);
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
