/**
 * @rred/llama/testing — for tests in this and other packages: whether the llama.cpp suites run, and the
 * committed embedded checkpoint exported to a GGUF once per test process (not part of the library's API).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EMBEDDED_CHECKPOINT } from '@rred/lm';
import { exportGguf } from './src/export-gguf';

/**
 * Whether node-llama-cpp (an optional dependency) is installed. Where it must be (`.ci/run` sets
 * RRED_REQUIRE_LLAMA=1), the suites run regardless, so a missing or broken binding fails them instead of
 * hiding behind a skip; elsewhere a missing one skips them, said once on stderr.
 */
function bindingInstalled(): boolean {
  // Node's lookup from the worker's folder upwards (the package's exports do not expose package.json to require.resolve).
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'node_modules', 'node-llama-cpp', 'package.json'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

const llamaTestsEnabled: boolean = process.env.RRED_REQUIRE_LLAMA === '1' || bindingInstalled();
if (!llamaTestsEnabled) process.stderr.write('llama.cpp suites skipped: node-llama-cpp (optional dependency) is not installed\n');
export const describeLlama: jest.Describe = llamaTestsEnabled ? describe : describe.skip;

let exported: Promise<string> | null = null;

/** The repository's embedded.ckpt as GGUF, in a temporary directory removed at exit. */
export function exportedEmbedded(): Promise<string> {
  if (!exported) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-gguf-'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const root = path.resolve(__dirname, '..', '..');
    exported = exportGguf(path.join(root, EMBEDDED_CHECKPOINT), path.join(dir, 'embedded.gguf')).then((s) => s.out);
  }
  return exported;
}
