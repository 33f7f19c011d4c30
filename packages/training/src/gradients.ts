import * as fs from 'fs';
import * as path from 'path';
import { tf } from '@rred/engine';

/**
 * tfjs-core's CommonJS entry (what Node loads) ships without gradient definitions; they exist only
 * as ES modules (`dist/register_all_gradients.js` + `dist/gradients/*`), which neither Node 20's
 * `require` nor jest can load. We bundle that entry once into a CommonJS file with esbuild (already
 * installed as tsx's dependency), cache it under node_modules/.cache, and require it. The gradient
 * registry and the engine are process globals in tfjs, so gradients registered by the bundled copy
 * apply to the engine everybody uses. No-op when gradients are already registered (e.g. by the engine).
 */
export function ensureGradientsRegistered(): void {
  if (tf.getGradient('Neg') !== undefined) return;
  const corePackage = require.resolve('@tensorflow/tfjs-core/package.json');
  const version = (JSON.parse(fs.readFileSync(corePackage, 'utf8')) as { version: string }).version;
  const entry = path.join(path.dirname(corePackage), 'dist', 'register_all_gradients.js');
  const cacheDir = path.join(path.dirname(corePackage), '..', '..', '.cache', 'rred');
  const bundle = path.join(cacheDir, `tfjs-core-${version}-gradients.cjs`);
  if (!fs.existsSync(bundle)) {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const esbuild = require('esbuild') as typeof import('esbuild');
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = `${bundle}.tmp-${process.pid}`;
    esbuild.buildSync({ entryPoints: [entry], bundle: true, format: 'cjs', platform: 'node', outfile: tmp, logLevel: 'error' });
    fs.renameSync(tmp, bundle);
  }
  require(bundle);
  if (tf.getGradient('Neg') === undefined) throw new Error(`registering tfjs gradients from ${bundle} failed`);
}

ensureGradientsRegistered();
