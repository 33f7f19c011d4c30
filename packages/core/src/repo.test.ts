import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findRepoRoot, gitState, repoRoot, uncommittedPaths } from './repo';

const tempDir = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `rred-repo-${label}-`));

describe('repository checkout', () => {
  it('finds the root holding nx.json from inside it, and null outside', () => {
    const root = findRepoRoot(__dirname);
    expect(root).not.toBeNull();
    expect(fs.existsSync(path.join(root!, 'nx.json'))).toBe(true);
    expect(repoRoot()).toBe(root);
    expect(findRepoRoot(tempDir('noroot'))).toBeNull();
  });

  it("records commit 'unknown' outside a git checkout", () => {
    const dir = tempDir('nogit');
    expect(gitState(dir)).toEqual({ commit: 'unknown', dirty: null, diffSha256: null, untrackedFiles: null });
    expect(uncommittedPaths(dir, '.')).toBeNull();
  });

  it('detects a dirty tree and hashes the diff', () => {
    const dir = tempDir('git');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'a.txt'), 'one\n');
    git('add', 'sub/a.txt');
    git('commit', '-q', '-m', 'init');
    const clean = gitState(dir);
    expect(clean.dirty).toBe(false);
    expect(uncommittedPaths(dir, 'sub')).toEqual([]);
    fs.writeFileSync(path.join(dir, 'sub', 'a.txt'), 'two\n');
    const dirty = gitState(dir);
    expect(dirty.dirty).toBe(true);
    expect(dirty.commit).toBe(clean.commit);
    expect(dirty.diffSha256).not.toBe(clean.diffSha256);
    expect(uncommittedPaths(dir, 'sub')).toEqual(['sub/a.txt']);
    expect(uncommittedPaths(dir, 'elsewhere')).toEqual([]);
  });
});
