import * as fs from 'fs';
import * as path from 'path';
import { UserError } from './errors';

/**
 * Checks, before anything is computed, that `dir` can take a command's output files: an existing
 * directory we can write into, or a path whose nearest existing ancestor is one (the directory itself
 * is created later, by the writer). The check writes nothing that stays: it creates and removes one
 * empty probe directory, because permission bits say little when running as root (and nothing at all
 * on /proc or a read-only mount). `flag` names the option in the message.
 */
export function checkOutputDir(dir: string, flag = '--out'): void {
  let probeIn = path.resolve(dir);
  for (;;) {
    let stat: fs.Stats | null = null;
    try {
      stat = fs.statSync(probeIn);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOTDIR: a file stands somewhere above; walking up finds it and says so
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UserError(`${flag}: cannot use ${dir} (${code})`);
    }
    if (stat) {
      if (!stat.isDirectory()) {
        const what = probeIn === path.resolve(dir) ? dir : `${probeIn} (a parent of ${dir})`;
        throw new UserError(`${flag}: ${what} is a file, expected a directory for the output files`);
      }
      break;
    }
    const parent = path.dirname(probeIn);
    if (parent === probeIn) throw new UserError(`${flag}: no existing directory above ${dir}`);
    probeIn = parent;
  }
  let probe: string;
  try {
    probe = fs.mkdtempSync(path.join(probeIn, '.rred-probe-'));
  } catch (e) {
    throw new UserError(
      `${flag}: cannot write into ${probeIn} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), so ${dir} cannot hold the output files`,
    );
  }
  fs.rmdirSync(probe);
}
