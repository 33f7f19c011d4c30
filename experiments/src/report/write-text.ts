import * as fs from 'fs';
import * as path from 'path';
import { writeOutputFile } from '@rred/core';

/** Writes a rendered table (or any text) to `file`, creating its directory; atomically (a full disk leaves the old file, never half a table). */
export function writeText(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeOutputFile(file, text);
}
