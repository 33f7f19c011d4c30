import * as fs from 'fs';
import * as path from 'path';

/** Writes a rendered table (or any text) to `file`, creating its directory. */
export function writeText(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
