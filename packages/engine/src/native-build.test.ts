import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const buildScript = path.resolve(__dirname, '..', 'native', 'build.js');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { findOpenblas } = require('../native/openblas-paths.js') as { findOpenblas(): { include: string | null; lib: string | null } };

/** The postinstall must never fail `npm ci`: a missing prerequisite is one warning line and exit 0. */
function runBuild(env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [buildScript], { env, encoding: 'utf8', timeout: 60000 });
  return { status: r.status, stderr: r.stderr.trim() };
}

describe('native/build.js (root postinstall)', () => {
  const addon = path.resolve(__dirname, '..', 'native', 'build', 'Release', 'rred_native.node');

  it('without a C compiler: one warning line naming the fallback, exit 0, existing build untouched', () => {
    const before = fs.existsSync(addon) ? fs.statSync(addon).mtimeMs : null;
    const blas = findOpenblas();
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: '/nonexistent' };
    if (blas.include) env.RRED_OPENBLAS_INCLUDE = blas.include;
    if (blas.lib) env.RRED_OPENBLAS_LIB = blas.lib;
    const r = runBuild(env);
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n')).toHaveLength(1);
    const reason = blas.include && blas.lib ? 'no C compiler \\(cc\\) found' : 'OpenBLAS header cblas.h not found|libopenblas.so not found';
    expect(r.stderr).toMatch(new RegExp(`^engine: native kernels not built \\((${reason}).*\\); falling back to plain wasm$`));
    expect(fs.existsSync(addon) ? fs.statSync(addon).mtimeMs : null).toBe(before);
  });

  it('RRED_SKIP_NATIVE=1 skips the build with the same one-line warning', () => {
    const r = runBuild({ ...process.env, RRED_SKIP_NATIVE: '1' });
    expect(r).toEqual({ status: 0, stderr: 'engine: native kernels not built (RRED_SKIP_NATIVE=1); falling back to plain wasm' });
  });
});
