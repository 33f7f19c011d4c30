import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import '@tensorflow/tfjs-backend-cpu';

export interface EngineInfo {
  backend: string;
  reasonsSkipped: Record<string, string>;
  openblasThreads: number | null;
  nativeKernels: string[];
}

export interface InitEngineOptions {
  quiet?: boolean;
}

let info: EngineInfo | null = null;

/** Bootstrap version: wasm, else cpu. */
export async function initEngine(options: InitEngineOptions = {}): Promise<EngineInfo> {
  if (info) return info;
  const wanted = process.env.RRED_BACKEND ?? 'wasm';
  const ok = await tf.setBackend(wanted === 'cpu' ? 'cpu' : 'wasm');
  if (!ok) await tf.setBackend('cpu');
  await tf.ready();
  info = { backend: tf.getBackend(), reasonsSkipped: {}, openblasThreads: null, nativeKernels: [] };
  if (!options.quiet) process.stderr.write(`engine: ${info.backend}\n`);
  return info;
}

export function engineInfo(): EngineInfo {
  if (!info) throw new Error('engineInfo() called before initEngine()');
  return info;
}
