import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { UserError } from '@rred/core';

/** What the worker reports about the loaded model (worker/llama-worker.mjs `load`). */
export interface LoadedModel {
  /** node-llama-cpp's version. */
  version: string;
  vocabSize: number;
  /** The model's training context (for a lab export: its position table, contextLength). */
  trainContextSize: number;
  /** Tokens the context holds: min(requested, train context). */
  contextSize: number;
  architecture: string;
  name: string | null;
  /** The file's `rred.*` metadata keys (a lab export's checkpoint hash and tokenizer), as strings. */
  metadata: Record<string, string>;
  bos: number | null;
  eos: number | null;
}

/** One `evaluate` call's answer (see the worker): per wanted position, log p(target) and entropy, or the whole distribution. */
interface Evaluated {
  logprobs: Float64Array;
  entropies: Float64Array;
  /** Dense next-token probabilities [V] per wanted position (only when asked `full`). */
  dists: Float32Array[];
  /** Token positions pushed through the network by this call. */
  evaluated: number;
}

/** A GGUF header as node-llama-cpp's `readGgufFileInfo` parses it (metadata nested by key path). */
interface GgufInfo {
  version: number;
  metadata: Record<string, unknown>;
  tensors: { name: string; ne: number[]; type: number; offset: number }[];
}

interface EvaluateArgs {
  /** Positions of the current sequence to keep; the rest are erased first. */
  keep: number;
  tokens: number[];
  /** Indices into `tokens` whose next-token distribution is wanted. */
  at: number[];
  /** Without `full`: the token whose log-prob is wanted at each `at`. */
  targets: number[];
  full: boolean;
}

const WORKER = path.join(__dirname, '..', 'worker', 'llama-worker.mjs');

/**
 * The llama.cpp worker thread: node-llama-cpp is ESM with top-level await, which CommonJS code (this
 * repository's, and jest's runtime) cannot `require`, so it runs in a worker and is reached by messages.
 * The worker is unref'd while idle, so an open model never keeps the process alive.
 */
export class LlamaWorker {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  /** `binding`: the package to load (default node-llama-cpp; tests name a missing one). */
  constructor(binding?: string) {
    this.worker = new Worker(WORKER, { workerData: { binding } });
    this.worker.unref();
    this.worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (this.pending.size === 0) this.worker.unref();
      if (error !== undefined)
        p.reject(error.startsWith('BINDING: ') ? new UserError(bindingMessage(error)) : new Error(`llama.cpp: ${error}`));
      else p.resolve(result);
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`llama.cpp worker exited (code ${code})`)));
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private call<T>(op: string, args: unknown): Promise<T> {
    const id = this.nextId++;
    this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, args });
    });
  }

  load(args: { modelPath: string; threads: number; contextSize?: number; kvCacheType: 'F32' | 'F16' }): Promise<LoadedModel> {
    return this.call('load', args);
  }

  /** Loads only the file's vocabulary (llama.cpp's vocab-only mode: no weights read, no context). */
  loadVocabulary(modelPath: string): Promise<{ version: string; vocabSize: number }> {
    return this.call('load', { modelPath, vocabOnly: true });
  }

  evaluate(args: EvaluateArgs): Promise<Evaluated> {
    return this.call('evaluate', args);
  }

  /** A GGUF file's header read back by node-llama-cpp's own parser (no model needed). */
  readInfo(file: string): Promise<GgufInfo> {
    return this.call('readInfo', { file });
  }

  tokenize(text: string): Promise<number[]> {
    return this.call('tokenize', { text });
  }

  /**
   * Text → ids synchronously: the worker fills a shared buffer while this thread waits (Atomics.wait), so
   * a tokenizer can offer the usual synchronous encode. Worst case one token per UTF-8 byte.
   */
  tokenizeSync(text: string): number[] {
    const slots = Buffer.byteLength(text, 'utf8') + 16;
    const shared = new SharedArrayBuffer(4 * (slots + 2));
    const view = new Int32Array(shared);
    const reply = this.call<null>('tokenizeInto', { text, shared });
    reply.catch(() => undefined); // the outcome is read from the buffer; a failure's message comes below
    const waited = Atomics.wait(view, 0, 0, 60_000);
    if (waited === 'timed-out') throw new Error('llama.cpp: tokenize timed out after 60 s');
    if (view[0] !== 1) throw new UserError(`llama.cpp tokenizer: could not tokenize ${JSON.stringify(text.slice(0, 40))}`);
    return Array.from(view.subarray(2, 2 + view[1]));
  }

  pieces(): Promise<string[]> {
    return this.call('pieces', {});
  }

  async dispose(): Promise<void> {
    try {
      await this.call('dispose', {});
    } finally {
      await this.worker.terminate();
    }
  }
}

/** The one-line message for a binding that cannot load (an optional dependency: the rest of the lab works without it). */
function bindingMessage(error: string): string {
  return (
    `llama.cpp engine unavailable: ${error.slice('BINDING: '.length)}; ` +
    'node-llama-cpp 3.21.1 is an optional dependency (npm install brings its prebuilt CPU binary); use an in-process checkpoint or a served model instead'
  );
}
