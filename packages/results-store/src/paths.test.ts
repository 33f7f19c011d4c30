import * as path from 'path';
import { UserError } from '@rred/core';
import { resolveStorePath } from './paths';

const root = path.resolve(__dirname, '../../..');

describe('resolveStorePath', () => {
  it('refuses an explicit empty path instead of falling back to the default store', () => {
    expect(() => resolveStorePath('', {})).toThrow(UserError);
    expect(() => resolveStorePath('', {})).toThrow("--store: got '', expected a file or directory path");
  });

  it('resolves relative paths against the repository root, from any cwd, like every other path', () => {
    const cwd = process.cwd();
    try {
      process.chdir(path.join(root, 'packages'));
      expect(resolveStorePath('s.sqlite', {})).toBe(path.join(root, 's.sqlite'));
      expect(resolveStorePath(undefined, { RRED_STORE: 'x/e.sqlite' })).toBe(path.join(root, 'x', 'e.sqlite'));
      expect(resolveStorePath(undefined, { RRED_STORE: '' })).toBe(path.join(root, 'results', 'store.sqlite'));
    } finally {
      process.chdir(cwd);
    }
  });
});
