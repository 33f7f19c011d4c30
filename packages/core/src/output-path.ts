import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { UserError } from './errors';

/**
 * Every file or directory a command writes goes through here. The rules:
 * - nothing is written over what is not a regular file (a character device such as /dev/null, a FIFO,
 *   a socket) and nothing through a symlink at the target (it is refused, not followed or replaced);
 * - a file is written to a temporary file beside it, flushed, then renamed over it, so a reader sees
 *   the old file or the new one and a failure (a full disk) leaves the old one as it was;
 * - a directory is replaced only when it is empty or holds the writer's own marker file, so nothing
 *   the command did not create is deleted;
 * - the precheck (before any compute) also asks the file system for free space.
 */

/**
 * Free space the output precheck asks for: the largest committed result folder (results/finetune) is
 * about 1.5 MB, a run export a few hundred KB; 4 MiB leaves room for both.
 */
const OUTPUT_MIN_FREE_BYTES = 4 * 1024 * 1024;

/** Free-space reader (Node's fs.statfsSync; tests inject a full file system). */
export type StatFs = (dir: string) => { bavail: number; bsize: number };

interface OutputCheckOptions {
  /** Free bytes required on the output's file system (default OUTPUT_MIN_FREE_BYTES). */
  minFreeBytes?: number;
  statfs?: StatFs;
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** What a non-regular, non-directory file system entry is, for messages. */
function kindOf(stat: fs.Stats): string {
  if (stat.isSymbolicLink()) return 'a symlink';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (e) {
    if (code(e) === 'ENOENT') return null;
    throw e;
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Refuses when the file system holding `dir` has less than `minFreeBytes` free for this user. */
function checkFreeSpace(dir: string, flag: string, opts: OutputCheckOptions = {}): void {
  const need = opts.minFreeBytes ?? OUTPUT_MIN_FREE_BYTES;
  let free: number;
  try {
    const s = (opts.statfs ?? fs.statfsSync)(dir);
    free = s.bavail * s.bsize;
  } catch {
    return; // a file system that cannot say (statfs unsupported): the write itself reports a full disk
  }
  if (free < need) throw new UserError(`${flag}: only ${mib(free)} free on the file system of ${dir}; the output needs about ${mib(need)}`);
}

/** The nearest existing directory at or above `dir` (a file on the way is an error naming it). */
function nearestDir(dir: string, flag: string): string {
  const target = path.resolve(dir);
  let at = target;
  for (;;) {
    let stat: fs.Stats | null = null;
    try {
      stat = fs.statSync(at);
    } catch (e) {
      // ENOTDIR: a file stands somewhere above; walking up finds it and says so
      if (code(e) !== 'ENOENT' && code(e) !== 'ENOTDIR') throw new UserError(`${flag}: cannot use ${dir} (${code(e)})`);
    }
    if (stat) {
      if (!stat.isDirectory()) {
        const what = at === target ? dir : `${at} (a parent of ${dir})`;
        throw new UserError(`${flag}: ${what} is ${stat.isFile() ? 'a file' : kindOf(stat)}, expected a directory for the output files`);
      }
      return at;
    }
    const parent = path.dirname(at);
    if (parent === at) throw new UserError(`${flag}: no existing directory above ${dir}`);
    at = parent;
  }
}

/**
 * Checks, before anything is computed, that `dir` can take a command's output files: an existing
 * directory we can write into, or a path whose nearest existing ancestor is one (the directory itself
 * is created later, by the writer), on a file system with free space. The check writes nothing that
 * stays: it creates and removes one empty probe directory, because permission bits say little when
 * running as root (and nothing at all on /proc or a read-only mount).
 */
export function checkOutputDir(dir: string, flag = '--out', opts: OutputCheckOptions = {}): void {
  const probeIn = nearestDir(dir, flag);
  const own = lstatOrNull(path.resolve(dir));
  if (own?.isSymbolicLink()) throw new UserError(`${flag}: ${dir} is a symlink; give the directory it points to`);
  let probe: string;
  try {
    probe = fs.mkdtempSync(path.join(probeIn, '.rred-probe-'));
  } catch (e) {
    throw new UserError(`${flag}: cannot write into ${probeIn} (${code(e)}), so ${dir} cannot hold the output files`);
  }
  fs.rmdirSync(probe);
  checkFreeSpace(probeIn, flag, opts);
}

/**
 * Checks a file a command will write: not empty, not a directory, a symlink or any other non-regular
 * file (a device, a FIFO); its directory exists and takes files, with free space. Returns the absolute path.
 */
export function checkOutputFile(file: string, flag = '--out', opts: OutputCheckOptions = {}): string {
  if (file.trim() === '') throw new UserError(`${flag}: got an empty path, expected a file name`);
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  let dirStat: fs.Stats;
  try {
    dirStat = fs.statSync(dir);
  } catch (e) {
    throw new UserError(`${flag} ${file}: its directory ${dir} ${code(e) === 'ENOENT' ? 'does not exist' : `cannot be used (${code(e)})`}`);
  }
  if (!dirStat.isDirectory()) throw new UserError(`${flag} ${file}: ${dir} is not a directory`);
  const stat = lstatOrNull(abs);
  if (stat?.isDirectory()) throw new UserError(`${flag} ${file} is a directory, expected a file name`);
  if (stat && !stat.isFile())
    throw new UserError(`${flag} ${file} is ${kindOf(stat)}; only a regular file (or a new name) is written, choose another file`);
  checkOutputDir(dir, flag, opts);
  return abs;
}

/**
 * Writes `data` to `file` atomically: into a temporary file beside it, flushed to disk, then renamed
 * over `file`, which must be a regular file or absent (checked again right before the rename). A
 * failure (a full disk, a read-only directory) leaves the old file as it was, removes the temporary
 * file and is one UserError line naming `flag` and the file.
 */
export function writeOutputFile(file: string, data: string | Uint8Array, flag = '--out'): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const ensureRegular = () => {
    const stat = lstatOrNull(file);
    if (stat && !stat.isFile()) throw new UserError(`${flag} ${file} is ${kindOf(stat)}; only a regular file (or a new name) is written`);
  };
  try {
    ensureRegular();
    const fd = fs.openSync(tmp, 'wx');
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    ensureRegular();
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    if (err instanceof UserError) throw err;
    throw new UserError(`${flag}: cannot write ${file} (${code(err)})`);
  }
}

/**
 * Refuses, before any work, an output directory that `replaceOutputDir` would not replace: one that is
 * a symlink or not a directory, or is a directory neither empty nor holding `marker`.
 */
export function checkReplaceableDir(dir: string, marker: string, flag = '--out', opts: OutputCheckOptions = {}): void {
  const abs = path.resolve(dir);
  const stat = lstatOrNull(abs);
  if (stat) {
    if (!stat.isDirectory()) throw new UserError(`${flag}: ${dir} is ${stat.isFile() ? 'a file' : kindOf(stat)}, expected a directory`);
    const entries = fs.readdirSync(abs);
    if (entries.length > 0 && !entries.includes(marker)) {
      throw new UserError(
        `${flag}: ${dir} is not empty and holds no ${marker} (it was not written by this command); refusing to replace it: give a new or empty directory`,
      );
    }
  }
  checkOutputDir(path.dirname(abs), flag, opts);
}

/**
 * Puts the finished directory `tmp` (made beside `dir`, holding `marker`) in place of `dir`: `dir`
 * absent, empty, or holding `marker` (an earlier output of the same writer) is replaced; anything else
 * is refused with `tmp` removed and `dir` untouched.
 */
export function replaceOutputDir(tmp: string, dir: string, marker: string, flag = '--out'): void {
  try {
    if (!fs.existsSync(path.join(tmp, marker))) throw new Error(`replaceOutputDir: ${tmp} holds no ${marker}`);
    checkReplaceableDir(dir, marker, flag, { minFreeBytes: 0 });
    if (lstatOrNull(dir)) fs.rmSync(dir, { recursive: true });
    fs.renameSync(tmp, dir);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (err instanceof UserError) throw err;
    throw new UserError(`${flag}: cannot put the output in place at ${dir} (${code(err)})`);
  }
}
