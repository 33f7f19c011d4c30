import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { captureGit, captureRunContext } from './context';
import { tempDir } from '../testing';

describe('run context', () => {
  it('captures git state, argv, versions, lockfile hash and the backend given', () => {
    const ctx = captureRunContext({ backend: { backend: 'wasm', openblasThreads: 2 }, argv: ['node', 'x.ts', '--seed', '3'] });
    expect(ctx.git.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof ctx.git.dirty).toBe('boolean');
    expect(ctx.git.diffSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ctx.argv).toEqual(['node', 'x.ts', '--seed', '3']);
    expect(ctx.node).toBe(process.version);
    expect(ctx.packages['better-sqlite3']).toMatch(/^\d+\.\d+\.\d+/);
    expect(ctx.lockfileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ctx.backend).toBe('wasm');
    expect(ctx.openblasThreads).toBe(2);
    expect(ctx.cpus).toBeGreaterThan(0);
  });

  it("records commit 'unknown' outside a git checkout", () => {
    expect(captureGit(tempDir('nogit'))).toEqual({ commit: 'unknown', dirty: null, diffSha256: null, untrackedFiles: null });
  });

  it('detects a dirty tree and hashes the diff', () => {
    const dir = tempDir('git');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'init');
    const clean = captureGit(dir);
    expect(clean.dirty).toBe(false);
    fs.writeFileSync(path.join(dir, 'a.txt'), 'two\n');
    const dirty = captureGit(dir);
    expect(dirty.dirty).toBe(true);
    expect(dirty.commit).toBe(clean.commit);
    expect(dirty.diffSha256).not.toBe(clean.diffSha256);
  });
});
