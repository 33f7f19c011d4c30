import * as os from 'os';
import { types } from 'util';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import '@tensorflow/tfjs-backend-cpu';
import { z } from 'zod';
import { parseConfig } from '@rred/core';
import {
  type Attempt,
  type AttemptResult,
  BACKEND_ORDER,
  type BackendName,
  candidatesFor,
  chooseBackend,
  engineLine,
  parseBackendName,
  parseThreadCount,
} from './backend-choice';
import { loadNativeAddon, type NativeAddon } from './native-addon';
import { installNativeKernels } from './native-kernels';
import { installWasmPolyfills } from './polyfills';
import { ensureGradientsRegistered } from './register-gradients';

ensureGradientsRegistered();

interface EngineInfo {
  /** The backend in use: one of tfjs-node-gpu, tfjs-node, wasm+native, wasm, cpu. */
  backend: BackendName;
  /** Why each backend tried before the chosen one was skipped. */
  reasonsSkipped: Partial<Record<BackendName, string>>;
  /** Threads asked for with RRED_BLAS_THREADS / blasThreads: the kernel pool's (OpenBLAS itself runs on one; wasm+native only, else null). */
  openblasThreads: number | null;
  /** OpenBLAS build and core type, e.g. "OpenBLAS 0.3.21 ... SkylakeX" (wasm+native only). */
  openblasConfig: string | null;
  /** Kernel names served by the native addon (empty unless wasm+native). */
  nativeKernels: string[];
}

const InitEngineOptionsSchema = z
  .object({
    backend: z
      .enum(BACKEND_ORDER)
      .optional()
      .describe(`Backend to use. Unset: env RRED_BACKEND, else the first that loads in the order ${BACKEND_ORDER.join(' → ')}.`),
    blasThreads: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'Kernel-pool threads for wasm+native (large products split across them; OpenBLAS runs on one thread, the sgemm peak on this many). Unset: env RRED_BLAS_THREADS, else os.availableParallelism().',
      ),
    quiet: z.boolean().optional().describe('true: do not log the backend line (fallback warnings still print).'),
    addonPath: z
      .string()
      .optional()
      .describe('Path of rred_native.node. Unset: env RRED_NATIVE_ADDON, else packages/engine/native/build/Release/rred_native.node.'),
    log: z
      .custom<(line: string) => void>((v) => typeof v === 'function', 'expected a function')
      .optional()
      .describe('Where the engine line goes. Unset: a line on stderr.'),
  })
  .strict();

type InitEngineOptions = z.infer<typeof InitEngineOptionsSchema>;

let info: EngineInfo | null = null;
let pending: Promise<EngineInfo> | null = null;

/**
 * Picks the TensorFlow.js backend and installs the native kernels. Idempotent: later calls return
 * the first call's info (whatever options they pass).
 */
export function initEngine(options: InitEngineOptions = {}): Promise<EngineInfo> {
  if (info) return Promise.resolve(info);
  if (!pending) {
    pending = init(options).then(
      (result) => (info = result),
      (err) => {
        pending = null;
        throw err;
      },
    );
  }
  return pending;
}

/** The chosen backend and its details; initEngine() must have completed. */
export function engineInfo(): EngineInfo {
  if (!info) throw new Error('engineInfo() called before initEngine() finished');
  return info;
}

async function init(rawOptions: InitEngineOptions): Promise<EngineInfo> {
  const options = parseConfig(InitEngineOptionsSchema, rawOptions, 'initEngine options');
  const requested = options.backend ?? (process.env.RRED_BACKEND ? parseBackendName(process.env.RRED_BACKEND, 'RRED_BACKEND') : undefined);
  const threads =
    options.blasThreads ??
    (process.env.RRED_BLAS_THREADS ? parseThreadCount(process.env.RRED_BLAS_THREADS, 'RRED_BLAS_THREADS') : os.availableParallelism());
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  let addon: NativeAddon | null = null;
  const attempts: Record<BackendName, Attempt> = {
    'tfjs-node-gpu': () => tryTfjsNode('@tensorflow/tfjs-node-gpu'),
    'tfjs-node': () => tryTfjsNode('@tensorflow/tfjs-node'),
    'wasm+native': async () => {
      const loaded = loadNativeAddon(options.addonPath);
      if (!loaded.ok) return loaded;
      const wasm = await trySetBackend('wasm');
      if (!wasm.ok) return wasm;
      const heap = (tf.backend() as unknown as { wasm?: { HEAPU8?: Uint8Array } }).wasm?.HEAPU8?.buffer;
      // util.types works across realms (jest runs tests in a separate vm context).
      if (!types.isArrayBuffer(heap)) return { ok: false, reason: 'wasm heap is not a plain ArrayBuffer (threaded wasm build?)' };
      loaded.addon.setThreads(threads);
      installWasmPolyfills();
      installNativeKernels(loaded.addon);
      addon = loaded.addon;
      return { ok: true };
    },
    wasm: async () => {
      const r = await trySetBackend('wasm');
      if (r.ok) installWasmPolyfills();
      return r;
    },
    cpu: () => trySetBackend('cpu'),
  };
  const choice = await chooseBackend(candidatesFor(requested), attempts, requested);
  const native = addon as NativeAddon | null;
  const blasConfig = native ? native.blasConfig() : null;
  const result: EngineInfo = {
    backend: choice.backend,
    reasonsSkipped: choice.reasonsSkipped,
    openblasThreads: native ? native.getThreads() : null,
    openblasConfig: blasConfig,
    nativeKernels: native ? installNativeKernels(native).names : [],
  };
  const detail = native ? (blasSummary(blasConfig ?? '', result.openblasThreads) ?? undefined) : undefined;
  const line = engineLine(choice, detail);
  const isWarning = choice.backend !== 'wasm+native' && choice.reasonsSkipped['wasm+native'] !== undefined;
  if (!options.quiet || isWarning) log(line);
  return result;
}

/**
 * The native kernels in a few words, as the engine line and the reproduction check print them: OpenBLAS's kernel
 * family, who chose it (OpenBLAS itself, or the OPENBLAS_CORETYPE environment variable) and the thread count;
 * null without the native kernels.
 */
export function blasSummary(config: string | null | undefined, threads: number | null): string | null {
  if (config === null || config === undefined) return null;
  const forced = process.env.OPENBLAS_CORETYPE ? `, chosen by OPENBLAS_CORETYPE=${process.env.OPENBLAS_CORETYPE}` : '';
  return `OpenBLAS ${blasCore(config)}${forced}, ${threads ?? '?'} thread(s)`;
}

/** The core type OpenBLAS picked, from e.g. "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64". */
function blasCore(config: string): string {
  const words = config.trim().split(/\s+/).slice(2);
  return words.filter((w) => !/^(NO_|USE_|DYNAMIC_ARCH|MAX_THREADS|SMP)/.test(w)).pop() ?? 'unknown';
}

async function trySetBackend(name: 'wasm' | 'cpu' | 'tensorflow'): Promise<AttemptResult> {
  try {
    const ok = await tf.setBackend(name);
    if (!ok) return { ok: false, reason: `tf.setBackend('${name}') failed` };
    await tf.ready();
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: `failed to initialise: ${firstLine(err)}` };
  }
}

async function tryTfjsNode(pkg: string): Promise<AttemptResult> {
  try {
    require.resolve(pkg);
  } catch {
    return { ok: false, reason: 'not installed' };
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    require(pkg);
  } catch (err) {
    return { ok: false, reason: `failed to load: ${firstLine(err)}` };
  }
  if (!tf.findBackend('tensorflow')) return { ok: false, reason: 'loaded, but registered with another copy of @tensorflow/tfjs-core' };
  return trySetBackend('tensorflow');
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}
