/**
 * A run's identity: what decides its result. The config alone does not — it names a checkpoint path,
 * `mcRun: "latest"`, a split — so the identity is the sha256 of the config hash together with the
 * experiment's resolved inputs (`ExperimentDefinition.inputs`): the checkpoint hash (weights + model
 * config + tokenizer), the source run that "latest" resolves to, the sha256 of every dataset file read.
 * A sweep reuses a point only for a FINISHED run with the same identity, and claims a point by it.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { canonicalJson, repoRoot, UserError } from '@rred/core';
import { configHash, type Store } from '@rred/results-store';
import type { ServedModelRef } from './cli-args';
import { fileSha256, type DatasetRef } from './dataset';
import type { ExperimentDefinition } from './experiment';
import { ggufSha256 } from './model';

/** The tag that holds a run's identity. */
export const IDENTITY_TAG = 'runIdentity';

export interface RunIdentity {
  /** Resolved inputs, recorded as tags of the run under these very keys. */
  inputs: Record<string, string>;
  /** sha256 of the canonical JSON of {configHash, inputs}. */
  identity: string;
}

/** `datasetSha256.<split>` → sha256 of packages/tasks/data/<split>.jsonl, for each split a run reads. */
export function datasetInputs(splits: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    [...new Set(splits)].map((split) => {
      const file = path.join(repoRoot(), 'packages', 'tasks', 'data', `${split}.jsonl`);
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file);
      } catch (err) {
        throw new UserError(`split '${split}': cannot read ${file} (${(err as Error).message})`);
      }
      return [`datasetSha256.${split}`, createHash('sha256').update(bytes).digest('hex')];
    }),
  );
}

/** What the command line puts in place of the config's checkpoint or split (see resolveIdentity). */
interface IdentityOverrides {
  served?: ServedModelRef | null;
  dataset?: DatasetRef | null;
}

/**
 * The identity a run of `config` has if it starts now (inputs resolved against the store as it is now).
 * On a served model (`--model`) the server stands for the checkpoint: the run is identified by its URL
 * and API instead of the local checkpoint's hash and the source run that hash finds. With `--dataset`
 * the file's sha256 and the verifier stand for the split files.
 */
export function resolveIdentity(
  def: ExperimentDefinition,
  config: Record<string, unknown>,
  store: Store,
  overrides: IdentityOverrides = {},
): RunIdentity {
  let inputs = def.inputs?.(config, store) ?? {};
  const { served, dataset } = overrides;
  if (served) {
    const { checkpointHash: _checkpoint, sourceRun: _source, ...rest } = inputs;
    inputs = { ...rest, 'model.url': served.url, 'model.api': served.api };
    if (served.api === 'gguf') inputs['model.sha256'] = ggufSha256(served.url); // a file at a path can change
  }
  if (dataset) {
    inputs = Object.fromEntries(Object.entries(inputs).filter(([k]) => !k.startsWith('datasetSha256.')));
    inputs = {
      ...inputs,
      'dataset.sha256': fileSha256(dataset.file),
      'dataset.verifier': dataset.verifier ?? (dataset.format === 'jsonl' ? 'task' : 'math'),
    };
    if (dataset.format !== 'jsonl') inputs['dataset.format'] = dataset.format; // jsonl runs keep their earlier identity
  }
  return {
    inputs,
    identity: createHash('sha256')
      .update(canonicalJson({ configHash: configHash(config), inputs }))
      .digest('hex'),
  };
}

/** The tags that record an identity on a run. */
export function identityTags(id: RunIdentity): Record<string, string> {
  return { ...id.inputs, [IDENTITY_TAG]: id.identity };
}

/**
 * After the compute: every input the compute recorded itself (e.g. the `checkpointHash` of the model
 * it loaded, the `sourceRun` it read) must be the one resolved before it started; otherwise the
 * identity would not say what was computed (the checkpoint was replaced mid-run, a newer source run
 * finished). Throws a UserError naming the input, so the run ends FAILED and is never reused.
 */
export function checkInputsUsed(store: Store, runId: string, id: RunIdentity): void {
  const tags = store.getRun(runId).tags;
  for (const [key, expected] of Object.entries(id.inputs)) {
    if (tags[key] !== expected)
      throw new UserError(
        `run ${runId}: input ${key} changed while it ran (resolved ${expected.slice(0, 16)} before it started, used ${String(tags[key]).slice(0, 16)}); run it again`,
      );
  }
}
