// The one place node-llama-cpp is imported. It is an ES module with top-level await, which neither
// CommonJS `require` nor jest's module runtime can load, so it runs in this worker thread (plain ESM)
// and src/llama-lm.ts talks to it by messages: {id, op, args} → {id, result} or {id, error}.
// One model, one context, one sequence; every op runs to completion before the next (the queue below).
import { parentPort, workerData } from 'node:worker_threads';

/** The binding's package name (workerData.binding: tests name a missing one to see the refusal). */
const BINDING = workerData?.binding ?? 'node-llama-cpp';

/** @type {{llama: any, model: any, context: any, sequence: any} | null} */
let state = null;

/** Probabilities (a Map token → p, from controlledEvaluate) as a dense Float32Array over the vocabulary. */
function dense(probabilities, vocabSize) {
  const out = new Float32Array(vocabSize);
  for (const [token, p] of probabilities) out[token] = p;
  return out;
}

/** Token ids the model's distributions cover: its vocabulary's length (llama.cpp's n_vocab). */
function vocabularySize(model) {
  return model.fileInfo.metadata.tokenizer.ggml.tokens.length;
}

async function importBinding() {
  try {
    return await import(BINDING);
  } catch (err) {
    throw new Error(`BINDING: ${BINDING} is not installed or cannot load (${String(err.message).split('\n')[0]})`);
  }
}

const ops = {
  /** Loads the binding, the model and one context of `contextSize` tokens; returns what the model is. */
  async load({ modelPath, threads, contextSize, kvCacheType, vocabOnly }) {
    const binding = await importBinding();
    const llama = await binding.getLlama({ gpu: false, build: 'never', logLevel: 'error', progressLogs: false, skipDownload: true });
    const model = await llama.loadModel({ modelPath, gpuLayers: 0, vocabOnly: vocabOnly === true });
    if (vocabOnly) {
      // the tokenizer alone: no weights, no context
      state = { llama, model, context: null, sequence: null };
      return { version: await binding.getModuleVersion(), vocabSize: vocabularySize(model) };
    }
    const train = model.trainContextSize;
    const size = Math.min(contextSize ?? train, train);
    const context = await model.createContext({
      contextSize: size,
      batchSize: size,
      sequences: 1,
      threads: { ideal: threads, min: threads },
      experimentalKvCacheKeyType: kvCacheType,
      experimentalKvCacheValueType: kvCacheType,
    });
    state = { llama, model, context, sequence: context.getSequence() };
    return {
      version: await binding.getModuleVersion(),
      vocabSize: vocabularySize(model),
      trainContextSize: train,
      contextSize: Math.min(context.contextSize, train),
      architecture: model.fileInfo.metadata.general.architecture,
      name: model.fileInfo.metadata.general.name ?? null,
      metadata: Object.fromEntries(
        Object.entries(model.fileInfo.metadata.rred ?? {}).map(([k, v]) => [`rred.${k}`, typeof v === 'string' ? v : JSON.stringify(v)]),
      ),
      bos: model.tokens.bos,
      eos: model.tokens.eos,
    };
  },

  /**
   * Keeps the first `keep` positions of the sequence, erases the rest, then evaluates `tokens` after them.
   * For each k in `at` (indices into `tokens`), the next-token distribution after tokens[k]: with `full`,
   * as a dense Float32Array; else log p(targets[k']) and the entropy (nats), in float64.
   */
  async evaluate({ keep, tokens, at, targets, full }) {
    const { sequence, model } = state;
    const V = vocabularySize(model);
    if (sequence.nextTokenIndex > keep) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    if (sequence.nextTokenIndex !== keep)
      throw new Error(`evaluate: the sequence holds ${sequence.nextTokenIndex} tokens, expected ${keep}`);
    const wanted = new Set(at);
    const input = tokens.map((t, k) => (wanted.has(k) ? [t, { generateNext: { probabilities: true } }] : t));
    const out = tokens.length > 0 ? await sequence.controlledEvaluate(input) : [];
    const logprobs = new Float64Array(at.length);
    const entropies = new Float64Array(at.length);
    const dists = [];
    at.forEach((k, i) => {
      const probabilities = out[k]?.next?.probabilities;
      if (!probabilities) throw new Error(`evaluate: no distribution returned at input position ${k}`);
      if (full) {
        dists.push(dense(probabilities, V));
        return;
      }
      let h = 0;
      for (const p of probabilities.values()) if (p > 0) h -= p * Math.log(p);
      entropies[i] = h;
      logprobs[i] = Math.log(probabilities.get(targets[i]) ?? 0);
    });
    return { logprobs, entropies, dists, evaluated: tokens.length };
  },

  /** A GGUF file's header as node-llama-cpp's own reader parses it (no model loaded): metadata and tensor infos. */
  async readInfo({ file }) {
    const { readGgufFileInfo } = await importBinding();
    const info = await readGgufFileInfo(file, { readTensorInfo: true });
    return {
      version: info.version,
      metadata: JSON.parse(JSON.stringify(info.metadata, (_, v) => (typeof v === 'bigint' ? Number(v) : v))),
      tensors: info.fullTensorInfo.map((t) => ({ name: t.name, ne: t.dimensions.map(Number), type: t.ggmlType, offset: Number(t.offset) })),
    };
  },

  /** Text → ids with the model's own tokenizer (special-token text parsed as special tokens). */
  tokenize({ text }) {
    return state.model.tokenize(text, true);
  },

  /**
   * Text → ids for a caller blocked in Atomics.wait (a synchronous tokenizer): the ids go into the shared
   * Int32Array [status, count, ...ids] (status 1 done, -1 failed: the message is in the reply), then notify.
   */
  tokenizeInto({ text, shared }) {
    const view = new Int32Array(shared);
    try {
      const ids = state.model.tokenize(text, true);
      if (ids.length > view.length - 2) throw new Error(`${ids.length} tokens exceed the ${view.length - 2} slots`);
      view.set(ids, 2);
      view[1] = ids.length;
      Atomics.store(view, 0, 1);
    } catch (err) {
      Atomics.store(view, 0, -1);
      throw err;
    } finally {
      Atomics.notify(view, 0);
    }
    return null;
  },

  /** The text of every token id, in id order (special tokens as their text). */
  pieces() {
    const V = vocabularySize(state.model);
    return Array.from({ length: V }, (_, id) => state.model.detokenize([id], true));
  },

  async dispose() {
    if (state) await state.llama.dispose();
    state = null;
  },
};

let queue = Promise.resolve();
parentPort.on('message', ({ id, op, args }) => {
  queue = queue.then(async () => {
    try {
      const result = await ops[op](args);
      const transfer = result && result.dists ? result.dists.map((d) => d.buffer) : [];
      parentPort.postMessage({ id, result }, transfer);
    } catch (err) {
      parentPort.postMessage({ id, error: String(err && err.message ? err.message : err) });
    }
  });
});
