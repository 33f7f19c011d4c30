import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const buildScript = path.resolve(__dirname, '..', 'native', 'build.js');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { findOpenblas } = require('../native/openblas-paths.js') as { findOpenblas(): { include: string | null; lib: string | null } };

/** Runs the real postinstall script. PATH=/nonexistent hides apt-get, the compiler and make, so it never installs or builds here. */
function runBuild(env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [buildScript], { env, encoding: 'utf8', timeout: 60000 });
  return { status: r.status, stderr: r.stderr.trim() };
}

describe('native/build.js (root postinstall; the decisions are unit-tested in native-prerequisites.test.ts)', () => {
  const addon = path.resolve(__dirname, '..', 'native', 'build', 'Release', 'rred_native.node');
  const mtime = () => (fs.existsSync(addon) ? fs.statSync(addon).mtimeMs : null);
  const hiddenTools = (): NodeJS.ProcessEnv => {
    const blas = findOpenblas();
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: '/nonexistent' };
    delete env.RRED_ALLOW_SLOW;
    delete env.RRED_SKIP_NATIVE;
    if (blas.include) env.RRED_OPENBLAS_INCLUDE = blas.include;
    if (blas.lib) env.RRED_OPENBLAS_LIB = blas.lib;
    return env;
  };

  it('cannot install (no apt-get, no compiler): stops the install with one line naming what to do, existing build untouched', () => {
    const before = mtime();
    const r = runBuild(hiddenTools());
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^engine: the native kernels need .*C compiler cc.*; install OpenBLAS .*then npm ci \(or RRED_ALLOW_SLOW=1 npm ci to continue on plain wasm, ~9x slower\)$/,
    );
    expect(mtime()).toBe(before);
  });

  it('the same with RRED_ALLOW_SLOW=1: one warning line, exit 0, plain wasm', () => {
    const before = mtime();
    const r = runBuild({ ...hiddenTools(), RRED_ALLOW_SLOW: '1' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(
      /^engine: native kernels not built \(not found: .*C compiler cc.*\); RRED_ALLOW_SLOW=1, so continuing on plain wasm \(~9x slower\)$/,
    );
    expect(mtime()).toBe(before);
  });

  it('RRED_SKIP_NATIVE=1 skips the build with one warning line', () => {
    const r = runBuild({ ...process.env, RRED_SKIP_NATIVE: '1' });
    expect(r).toEqual({ status: 0, stderr: 'engine: native kernels not built (RRED_SKIP_NATIVE=1); falling back to plain wasm' });
  });
});
