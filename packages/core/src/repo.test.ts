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

  it('hashes untracked files by path and content (not as the empty diff)', () => {
    const dir = tempDir('untracked');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    fs.writeFileSync(path.join(dir, '.gitignore'), 'ignored.txt\n');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    git('add', '.gitignore', 'a.txt');
    git('commit', '-q', '-m', 'init');
    const clean = gitState(dir);
    const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(clean).toMatchObject({ dirty: false, diffSha256: EMPTY_SHA256, untrackedFiles: 0 });

    fs.writeFileSync(path.join(dir, 'ignored.txt'), 'not part of the state\n');
    expect(gitState(dir)).toEqual(clean);

    fs.writeFileSync(path.join(dir, 'new file.ts'), 'export const x = 1;\n');
    const first = gitState(dir);
    expect(first).toMatchObject({ dirty: true, untrackedFiles: 1 });
    expect(first.diffSha256).not.toBe(EMPTY_SHA256);
    expect(gitState(dir)).toEqual(first); // same state, same hash

    fs.writeFileSync(path.join(dir, 'new file.ts'), 'export const x = 2;\n');
    const edited = gitState(dir);
    expect(edited.diffSha256).not.toBe(first.diffSha256);

    fs.renameSync(path.join(dir, 'new file.ts'), path.join(dir, 'other.ts'));
    expect(gitState(dir).diffSha256).not.toBe(edited.diffSha256); // same bytes under another name
  });
});
