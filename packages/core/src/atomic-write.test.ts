import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeFileAtomic } from './atomic-write';

describe('writeFileAtomic', () => {
  it('replaces the file as a whole and leaves no temporary file behind', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-atomic-'));
    const file = path.join(dir, 'out.csv');
    fs.writeFileSync(file, 'old content');
    writeFileAtomic(file, 'new');
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.readdirSync(dir)).toEqual(['out.csv']);
  });

  it('keeps the old file when the write fails (here: the target is a directory)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-atomic-'));
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'keep'), 'x');
    expect(() => writeFileAtomic(path.join(dir, 'sub'), 'new')).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['sub']);
    expect(fs.readFileSync(path.join(dir, 'sub', 'keep'), 'utf8')).toBe('x');
  });
});
