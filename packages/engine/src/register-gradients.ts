import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs-core';

/**
 * Registers tfjs-core's gradient definitions. Its CommonJS entry (what Node and jest load) ships
 * none: they exist only as ES modules (`dist/register_all_gradients.js`), which neither Node 20's
 * `require` nor jest can load. We bundle that entry once into CommonJS with esbuild (installed with
 * tsx), cache it per tfjs-core version under node_modules/.cache/rred, and require it. The gradient
 * registry and the engine are process globals in tfjs, so these gradients serve every copy of the
 * ops. No-op when gradients are already registered.
 */
export function ensureGradientsRegistered(): void {
  if (tf.getGradient('Neg') !== undefined) return;
  const corePackage = require.resolve('@tensorflow/tfjs-core/package.json');
  const version = (JSON.parse(fs.readFileSync(corePackage, 'utf8')) as { version: string }).version;
  const entry = path.join(path.dirname(corePackage), 'dist', 'register_all_gradients.js');
  const cacheDir = path.join(path.dirname(corePackage), '..', '..', '.cache', 'rred');
  const bundle = path.join(cacheDir, `tfjs-core-${version}-gradients.cjs`);
  if (!fs.existsSync(bundle)) {
    let esbuild: typeof import('esbuild');
    try {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      esbuild = require('esbuild') as typeof import('esbuild');
    } catch {
      throw new Error('engine: esbuild (a dependency of tsx) is needed once to bundle the tfjs gradients; run `npm ci`');
    }
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = `${bundle}.tmp-${process.pid}`; // concurrent builders each write their own file, then rename
    esbuild.buildSync({ entryPoints: [entry], bundle: true, format: 'cjs', platform: 'node', outfile: tmp, logLevel: 'error' });
    fs.renameSync(tmp, bundle);
  }
  require(bundle);
  if (tf.getGradient('Neg') === undefined) throw new Error(`engine: registering tfjs gradients from ${bundle} failed`);
}
