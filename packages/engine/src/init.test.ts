import { spawnSync } from 'child_process';
import * as path from 'path';
import { initEngine } from './init';
import { itNative } from './kernel-compare';

/** initEngine is process-global (tfjs backends, kernel registry), so each scenario runs in a fresh process. */
function runEngine(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const tsxCli = path.join(path.dirname(require.resolve('tsx/package.json')), 'dist', 'cli.mjs');
  const script = path.join(__dirname, 'test-fixtures', 'print-engine.ts');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const key of ['RRED_BACKEND', 'RRED_NATIVE_ADDON', 'RRED_BLAS_THREADS']) if (!(key in env)) delete childEnv[key];
  const r = spawnSync(process.execPath, [tsxCli, script], { env: childEnv, encoding: 'utf8', timeout: 60000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('initEngine', () => {
  itNative('defaults to wasm+native here, logs one line, records OpenBLAS threads and native kernels, and is idempotent', () => {
    const r = runEngine({ RRED_BLAS_THREADS: '1' });
    expect(r.status).toBe(0);
    const { info, same } = JSON.parse(r.stdout);
    expect(same).toBe(true);
    expect(info.backend).toBe('wasm+native');
    expect(info.openblasThreads).toBe(1);
    expect(info.nativeKernels).toEqual(expect.arrayContaining(['BatchMatMul', 'Transpose', 'Softmax', 'UnsortedSegmentSum']));
    expect(info.reasonsSkipped['tfjs-node']).toBeDefined();
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^engine: wasm\+native \(tfjs-node-gpu: .*; tfjs-node: .*\), OpenBLAS \S+, 1 thread\(s\)$/);
  });

  it('falls back to plain wasm with a one-line warning when the addon is missing', () => {
    const r = runEngine({ RRED_NATIVE_ADDON: '/nonexistent/rred_native.node' });
    expect(r.status).toBe(0);
    const { info } = JSON.parse(r.stdout);
    expect(info.backend).toBe('wasm');
    expect(info.nativeKernels).toEqual([]);
    expect(info.openblasThreads).toBeNull();
    expect(info.reasonsSkipped['wasm+native']).toMatch(/addon not found at \/nonexistent\/rred_native.node/);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^engine: wasm \(.*wasm\+native: addon not found .*\) — warning: native kernels unavailable, falling back to plain wasm \(~9x slower; install libopenblas-dev and re-run npm ci, see the README quick start\)$/,
    );
  });

  it('RRED_BACKEND=cpu selects the cpu backend and skips nothing', () => {
    const r = runEngine({ RRED_BACKEND: 'cpu' });
    expect(r.status).toBe(0);
    const { info } = JSON.parse(r.stdout);
    expect(info.backend).toBe('cpu');
    expect(info.reasonsSkipped).toEqual({});
    expect(r.stderr.trim()).toBe('engine: cpu');
  });

  it('a bad RRED_BACKEND is a one-line user error listing the allowed values (no stack trace)', () => {
    const r = runEngine({ RRED_BACKEND: 'gpu' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('error: RRED_BACKEND: got "gpu", expected one of tfjs-node-gpu, tfjs-node, wasm+native, wasm, cpu');
  });

  it('rejects unknown options by name', async () => {
    await expect(initEngine({ bakend: 'cpu' } as never)).rejects.toThrow(/unknown key 'bakend'/);
  });
});
