import * as path from 'path';
import { repoRoot, UserError } from '@rred/core';
import { engineInfo, initEngine } from '@rred/engine';
import { checkpointHash, TransformerLM } from '@rred/lm';
import type { BackendInfo } from '@rred/results-store';

export interface LoadedModel {
  lm: TransformerLM;
  /** The checkpoint's identity (weights + model config + tokenizer, see `checkpointHash` in @rred/lm): traces of different models are never mixed. */
  checkpointHash: string;
  /** Checkpoint path relative to the repository root, as configured. */
  checkpoint: string;
  backend: BackendInfo;
}

/**
 * Backend info for the run context, without loading a model (runs that only read the store). Not
 * quiet: every long job's first line names its backend, so a slow plain-wasm run is visible at once.
 */
export async function engineBackend(): Promise<BackendInfo> {
  await initEngine();
  const info = engineInfo();
  return { backend: info.backend, openblasThreads: info.openblasThreads };
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

export async function loadModel(checkpoint: string): Promise<LoadedModel> {
  const backend = await engineBackend();
  const file = path.resolve(repoRoot(), checkpoint);
  const before = checkpointHash(file);
  const lm = TransformerLM.fromCheckpoint(file);
  const hash = checkpointHash(file);
  if (hash !== before)
    throw new UserError(`checkpoint ${file}: the file changed while it was being loaded (e.g. by lm:pretrain); run again`);
  return { lm, checkpointHash: hash, checkpoint, backend };
}
