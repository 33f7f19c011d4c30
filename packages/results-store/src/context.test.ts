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
    expect(ctx.openblasConfig).toBeNull(); // not given
  });

  it("records OpenBLAS's kernels: the config string given and an OPENBLAS_CORETYPE override from the environment", () => {
    const saved = process.env.OPENBLAS_CORETYPE;
    try {
      process.env.OPENBLAS_CORETYPE = 'Haswell';
      const config = 'OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64';
      const ctx = captureRunContext({ backend: { backend: 'wasm+native', openblasThreads: 2, openblasConfig: config }, argv: [] });
      expect(ctx.openblasConfig).toBe(config);
      expect(ctx.threadEnv.OPENBLAS_CORETYPE).toBe('Haswell');
      delete process.env.OPENBLAS_CORETYPE;
      expect(captureRunContext({ backend: { backend: 'wasm', openblasThreads: null }, argv: [] }).threadEnv.OPENBLAS_CORETYPE).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.OPENBLAS_CORETYPE;
      else process.env.OPENBLAS_CORETYPE = saved;
    }
  });
});
