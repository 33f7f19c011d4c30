import * as fs from 'fs';

/** The 16 bytes every SQLite database file starts with. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** The files SQLite keeps beside a database (WAL mode: -wal, -shm; rollback mode: -journal). */
export const SIDE_FILE_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/** Whether `file` is a regular file that starts with the SQLite header (false when it does not exist). */
export function hasSqliteHeader(file: string): boolean {
  let fd: number;
  try {
    if (!fs.statSync(file).isFile()) return false;
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.equals(SQLITE_HEADER);
  } finally {
    fs.closeSync(fd);
  }
}
