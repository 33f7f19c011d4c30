import { captureRunContext } from './context';

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
});
