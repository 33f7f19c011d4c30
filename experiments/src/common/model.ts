import * as path from 'path';
import { repoRoot, UserError } from '@rred/core';
import { engineInfo, initEngine } from '@rred/engine';
import { readCheckpointHeader, TransformerLM } from '@rred/lm';
import type { BackendInfo } from '@rred/results-store';

export interface LoadedModel {
  lm: TransformerLM;
  /** sha256 of the checkpoint's weights: traces from different weights are never mixed. */
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

/** The checkpoint's weights hash, read from its header (no weights loaded). */
export function checkpointHashOf(checkpoint: string): string {
  return readCheckpointHeader(path.resolve(repoRoot(), checkpoint)).weightsSha256;
}

export async function loadModel(checkpoint: string): Promise<LoadedModel> {
  const backend = await engineBackend();
  const file = path.resolve(repoRoot(), checkpoint);
  const lm = TransformerLM.fromCheckpoint(file);
  const checkpointHash = readCheckpointHeader(file).weightsSha256;
  if (!checkpointHash) throw new UserError(`checkpoint ${file}: header has no weights hash`);
  return { lm, checkpointHash, checkpoint, backend };
}
