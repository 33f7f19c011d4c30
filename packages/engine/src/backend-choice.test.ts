import { UserError } from '@rred/core';
import {
  BACKEND_ORDER,
  type Attempt,
  type BackendName,
  candidatesFor,
  chooseBackend,
  engineLine,
  parseBackendName,
  parseThreadCount,
} from './backend-choice';

function attempts(outcomes: Partial<Record<BackendName, string | true>>, calls: string[]): Record<BackendName, Attempt> {
  const out = {} as Record<BackendName, Attempt>;
  for (const name of BACKEND_ORDER) {
    out[name] = async () => {
      calls.push(name);
      const o = outcomes[name] ?? 'not installed';
      return o === true ? { ok: true } : { ok: false, reason: o };
    };
  }
  return out;
}

describe('backend choice', () => {
  it('tries backends in order tfjs-node-gpu → tfjs-node → wasm+native → wasm → cpu and stops at the first that loads', async () => {
    const calls: string[] = [];
    const choice = await chooseBackend(candidatesFor(undefined), attempts({ 'wasm+native': true, wasm: true }, calls));
    expect(choice.backend).toBe('wasm+native');
    expect(calls).toEqual(['tfjs-node-gpu', 'tfjs-node', 'wasm+native']);
    expect(engineLine(choice)).toBe('engine: wasm+native (tfjs-node-gpu: not installed; tfjs-node: not installed)');
  });

  it('falls back to plain wasm with a warning naming the fallback when the addon is missing', async () => {
    const choice = await chooseBackend(candidatesFor(undefined), attempts({ 'wasm+native': 'addon not found at x.node', wasm: true }, []));
    expect(choice.backend).toBe('wasm');
    expect(engineLine(choice)).toBe(
      'engine: wasm (tfjs-node-gpu: not installed; tfjs-node: not installed; wasm+native: addon not found at x.node)' +
        ' — warning: native kernels unavailable, falling back to plain wasm (~9x slower; install libopenblas-dev and re-run npm ci, see the README quick start)',
    );
  });

  it('a requested backend is the only one tried, except wasm+native which may fall back to wasm', async () => {
    expect(candidatesFor('cpu')).toEqual(['cpu']);
    expect(candidatesFor('wasm+native')).toEqual(['wasm+native', 'wasm']);
    const calls: string[] = [];
    await expect(chooseBackend(candidatesFor('tfjs-node'), attempts({}, calls), 'tfjs-node')).rejects.toThrow(
      new UserError('RRED_BACKEND=tfjs-node could not be used (tfjs-node: not installed)'),
    );
    expect(calls).toEqual(['tfjs-node']);
  });

  it('rejects unknown backend names and bad thread counts with the allowed values', () => {
    expect(() => parseBackendName('gpu', 'RRED_BACKEND')).toThrow(UserError);
    expect(() => parseBackendName('gpu', 'RRED_BACKEND')).toThrow(
      'RRED_BACKEND: got "gpu", expected one of tfjs-node-gpu, tfjs-node, wasm+native, wasm, cpu',
    );
    expect(parseBackendName('wasm', 'x')).toBe('wasm');
    expect(parseThreadCount('3', 'RRED_BLAS_THREADS')).toBe(3);
    for (const bad of ['0', '-1', '1.5', 'two', '']) {
      expect(() => parseThreadCount(bad, 'RRED_BLAS_THREADS')).toThrow(/RRED_BLAS_THREADS: got .*, expected an integer >= 1/);
    }
  });
});
