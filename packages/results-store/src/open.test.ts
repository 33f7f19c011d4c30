import * as fs from 'fs';
import * as path from 'path';
import { openStore } from './store';
import { resolveStorePath } from './paths';
import { tempDir } from '../testing';
import { expectUserError } from './testing-helpers';

describe('opening the store', () => {
  it('refuses a file that is not a SQLite database, naming it and leaving it untouched', () => {
    const dir = tempDir('corrupt');
    const file = path.join(dir, 'store.sqlite');
    const junk = Buffer.from('this is not a database at all, just some text that happens to be long enough');
    fs.writeFileSync(file, junk);
    expectUserError(() => openStore(file), new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a SQLite database`));
    expect(fs.readFileSync(file).equals(junk)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('refuses a SQLite header followed by garbage as not a database or corrupt', () => {
    const file = path.join(tempDir('garbage'), 'store.sqlite');
    const bytes = Buffer.alloc(8192, 0xab);
    Buffer.from('SQLite format 3\0', 'latin1').copy(bytes);
    fs.writeFileSync(file, bytes);
    expectUserError(() => openStore(file), /store\.sqlite (is not a SQLite database|is corrupt)/);
  });

  it('refuses an unwritable path, naming it, and creates nothing', () => {
    const dir = tempDir('unwritable');
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, 'x');
    expectUserError(
      () => openStore(path.join(blocker, 'sub', 'store.sqlite')),
      /a-file\/sub\/store\.sqlite cannot be created: a parent of it is a file/,
    );
    expectUserError(() => openStore(dir), /is not a regular file/);
    expect(fs.readdirSync(dir)).toEqual(['a-file']);
  });

  it('resolves the default path: explicit, then RRED_STORE, then results/store.sqlite at the repo root', () => {
    expect(resolveStorePath('/x/y.sqlite', {})).toBe('/x/y.sqlite');
    expect(resolveStorePath(undefined, { RRED_STORE: '/env/s.sqlite' })).toBe('/env/s.sqlite');
    expect(resolveStorePath(undefined, {})).toBe(path.resolve(__dirname, '../../../results/store.sqlite'));
  });
});
