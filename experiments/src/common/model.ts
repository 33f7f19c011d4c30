import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot, UserError } from '@rred/core';
import { engineInfo, initEngine } from '@rred/engine';
import { LlamaLM } from '@rred/llama';
import { checkpointHash, Tokenizer, TransformerLM, type LanguageModel } from '@rred/lm';
import { RemoteLM } from '@rred/remote';
import type { BackendInfo } from '@rred/results-store';
import { promptTokens } from '@rred/tasks';
import type { ServedModelRef } from './cli-args';

/** What an experiment needs of a model: the LanguageModel and the tokenizer its text goes through. */
export type ExperimentLM = LanguageModel & { readonly tokenizer: Tokenizer };

export interface LoadedModel {
  lm: ExperimentLM;
  /** The checkpoint's identity (weights + model config + tokenizer, see `checkpointHash` in @rred/lm): traces of different models are never mixed. */
  checkpointHash: string;
  /** Checkpoint path relative to the repository root, as configured. */
  checkpoint: string;
  backend: BackendInfo;
  /** A served model's run tags (model.url, model.api, model.name); absent in-process. */
  tags?: Record<string, string>;
}

/**
 * Backend info for the run context, without loading a model (runs that only read the store). Not
 * quiet: every long job's first line names its backend, so a slow plain-wasm run is visible at once.
 */
export async function engineBackend(): Promise<BackendInfo> {
  await initEngine();
  const info = engineInfo();
  return { backend: info.backend, openblasThreads: info.openblasThreads, openblasConfig: info.openblasConfig };
}

/** A checkpoint's short name, its file stem: `embedded` for packages/lm/checkpoints/embedded.ckpt (report file names, result keys). */
export function checkpointStem(checkpoint: string): string {
  return path.basename(checkpoint).replace(/\.ckpt$/, '');
}

/** The checkpoint's identity (weights + model config + tokenizer), from its header (no weights loaded). */
export function checkpointHashOf(checkpoint: string): string {
  return checkpointHash(path.resolve(repoRoot(), checkpoint));
}

/**
 * What `checkpointHash` covers on runs recorded since it covers more than the weights: runs recorded
 * before carry the weights hash alone and no such tag (their hash is kept, so they never match a new one).
 */
export const CHECKPOINT_HASH_COVERS = 'weights+config+tokenizer';

/** The tags of a run that uses one checkpoint: its identity and what that identity covers. */
export function checkpointTags(checkpoint: string): Record<string, string> {
  return { checkpointHash: checkpointHashOf(checkpoint), checkpointHashCovers: CHECKPOINT_HASH_COVERS };
}

export async function loadModel(checkpoint: string): Promise<LoadedModel & { lm: TransformerLM }> {
  const backend = await engineBackend();
  const file = path.resolve(repoRoot(), checkpoint);
  const before = checkpointHash(file);
  const lm = TransformerLM.fromCheckpoint(file);
  const hash = checkpointHash(file);
  if (hash !== before)
    throw new UserError(`checkpoint ${file}: the file changed while it was being loaded (e.g. by lm:pretrain); run again`);
  return { lm, checkpointHash: hash, checkpoint, backend };
}

/**
 * A served model as an experiment's model. Its tokenizer and chat layout must be the task's (the
 * experiments build prompts with promptTokens and read `</think>` / `<eos>` by the tokenizer's ids), so
 * both are checked here. The run records the URL, the API and the model name the server reports; the
 * checkpoint identity is the server's (rred serve reports checkpointHash of its file) or `remote:<model name>`.
 */
async function connectServedModel(ref: ServedModelRef): Promise<LoadedModel> {
  const lm = await RemoteLM.connect({ url: ref.url, api: ref.api });
  const tok = lm.tokenizer;
  if (lm.special.eos !== tok.eos || lm.special.endThink !== tok.endThink || lm.special.think !== tok.think) {
    throw new UserError(
      `--model ${ref.url}: the served special tokens ${JSON.stringify(lm.special)} are not the task tokenizer's <eos>/<think>/</think>`,
    );
  }
  const probe = '1+2';
  if (lm.promptIds(probe).join(',') !== promptTokens(tok, probe).join(',')) {
    throw new UserError(
      `--model ${ref.url}: the served chat template ${JSON.stringify(lm.chat.template)} is not the task's <bos>{problem}<think>`,
    );
  }
  const served = lm.info.checkpointHash;
  const tags = {
    'model.url': ref.url,
    'model.api': ref.api,
    'model.name': lm.info.modelName,
    checkpointHashCovers: served ? CHECKPOINT_HASH_COVERS : 'served model name',
  };
  return { lm, checkpointHash: served ?? `remote:${lm.info.modelName}`, checkpoint: ref.url, backend: await engineBackend(), tags };
}

/**
 * A GGUF file on llama.cpp (`--model gguf:FILE`) as an experiment's model. The experiments' text layer is
 * the lab's tokenizer, so the file must be a lab checkpoint exported by `rred export-gguf` (its `rred.tokenizer`
 * key). Its identity is the file's sha256 (`gguf:<hash>`), never the checkpoint's: llama.cpp's arithmetic
 * differs (FP16 GELU table), so its traces and MC records are not mixed with the in-process model's.
 */
/** The sha256 of a `gguf:FILE` model's file (a missing file is a one-line error). */
export function ggufSha256(url: string): string {
  try {
    return createHash('sha256')
      .update(fs.readFileSync(url.slice('gguf:'.length)))
      .digest('hex');
  } catch (err) {
    throw new UserError(`--model ${url}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

async function loadGgufModel(ref: ServedModelRef): Promise<LoadedModel> {
  const file = ref.url.slice('gguf:'.length);
  const sha = ggufSha256(ref.url);
  const lm = await LlamaLM.load({ modelPath: file });
  const tokenizerJson = lm.info.metadata['rred.tokenizer'];
  if (!tokenizerJson) {
    await lm.dispose();
    throw new UserError(
      `--model ${ref.url}: not a lab checkpoint exported by \`rred export-gguf\` (no rred.tokenizer key); the experiments' text layer needs the lab's tokenizer`,
    );
  }
  const tokenizer = Tokenizer.fromJSON(JSON.parse(tokenizerJson), `${ref.url} rred.tokenizer`);
  const tags: Record<string, string> = {
    'model.url': ref.url,
    'model.api': 'gguf',
    'model.name': lm.info.name ?? path.basename(file),
    'model.engine': `llama.cpp (node-llama-cpp ${lm.info.version}, ${lm.config.threads} thread(s), ${lm.config.kvCache} KV cache)`,
    checkpointHashCovers: 'gguf file',
  };
  const exported = lm.info.metadata['rred.checkpoint_hash'];
  if (exported) tags['model.checkpointHash'] = exported;
  const hash = `gguf:${sha}`;
  return { lm: Object.assign(lm, { tokenizer }), checkpointHash: hash, checkpoint: ref.url, backend: await engineBackend(), tags };
}

const models = new Map<string, Promise<LoadedModel>>();
/** One loaded model per checkpoint (or served model) per process (a sweep runs many children on the same weights). */
export function sharedModel(checkpoint: string, served: ServedModelRef | null = null): Promise<LoadedModel> {
  const key = served ? `${served.api} ${served.url}` : checkpoint;
  let m = models.get(key);
  if (!m) {
    m = served ? (served.api === 'gguf' ? loadGgufModel(served) : connectServedModel(served)) : loadModel(checkpoint);
    m.catch(() => models.delete(key));
    models.set(key, m);
  }
  return m;
}
