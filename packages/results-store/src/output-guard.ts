import * as fs from 'fs';
import * as path from 'path';
import { checkOutputFile as checkOutputPath, UserError } from '@rred/core';
import { hasSqliteHeader, SIDE_FILE_SUFFIXES } from './sqlite-file';

/** The path with its existing part resolved through symlinks (the rest appended as given). */
function canonical(file: string): string {
  const abs = path.resolve(file);
  try {
    return fs.realpathSync(abs);
  } catch {
    const dir = path.dirname(abs);
    return dir === abs ? abs : path.join(canonical(dir), path.basename(abs));
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [fs.statSync(a), fs.statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * Checks a file a command is about to write (`flag` names it in messages, e.g. `--out`): what
 * `checkOutputFile` of @rred/core checks (a regular file or a new name in a writable directory with
 * free space; never a device, a FIFO or a symlink), and it may not be the results store `storeFile` or
 * one of its -wal/-shm/-journal files (by path, symlink or hard link), nor any other SQLite database
 * or side file of one. Call it before opening the store, then write with `writeOutputFile` (@rred/core).
 * Returns the absolute path.
 */
export function checkOutputFile(out: string, storeFile: string, flag: string): string {
  if (out.trim() === '') throw new UserError(`${flag}: got an empty path, expected a file name`);
  const abs = path.resolve(out);
  const target = canonical(abs);
  const store = canonical(storeFile);
  for (const suffix of ['', ...SIDE_FILE_SUFFIXES]) {
    if (target === store + suffix || sameFile(abs, storeFile + suffix)) {
      throw new UserError(
        `${flag} ${out} is the results store${suffix ? `'s ${suffix} file` : ''} (${storeFile}); writing there would destroy it, choose another file`,
      );
    }
  }
  if (hasSqliteHeader(abs)) throw new UserError(`${flag} ${out} is a SQLite database; refusing to overwrite it, choose another file`);
  const side = SIDE_FILE_SUFFIXES.find((s) => abs.endsWith(s));
  if (side && hasSqliteHeader(abs.slice(0, -side.length))) {
    throw new UserError(
      `${flag} ${out} is the ${side} file of the SQLite database ${abs.slice(0, -side.length)}; refusing to overwrite it, choose another file`,
    );
  }
  return checkOutputPath(out, flag);
}
