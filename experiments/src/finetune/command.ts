/**
 * `experiments:finetune`: validate the config (nothing is opened or written for a bad one), train or
 * reuse every (method, seed) child inside one parent run, then render results/finetune/ from the store.
 */
import * as path from 'path';
import { UserError } from '@rred/core';
import { openStore, withRun, type BackendInfo } from '@rred/results-store';
import { codeStateTags } from '../common/code-state';
import { repoRoot, resolveConfig } from '../common/load-config';
import { checkpointHashOf, engineBackend } from '../common/model';
import { loadSplit } from '../common/rollouts';
import { renderExperiment } from '../render/registry';
import { FINETUNE_EXPERIMENT, type ChildTrainer } from './children';
import { computeFinetune } from './compute';
import { FINETUNE_ALIASES, finetuneConfigIssues, finetuneConfigSchema, type FinetuneConfig } from './config';
import { planChildren } from './plan';

export interface FinetuneCommandDeps {
  /** Tests: a fake trainer and backend, a fixed checkpoint hash (no model is loaded). */
  train?: ChildTrainer;
  backend?: BackendInfo;
  checkpointHash?: string;
}

/** Everything that can be checked without opening the store; throws UserError. */
export function precheckFinetune(config: FinetuneConfig, deps: Pick<FinetuneCommandDeps, 'checkpointHash'> = {}): string {
  const issues = finetuneConfigIssues(config);
  if (issues.length) throw new UserError(`invalid finetune config:\n  ${issues.join('\n  ')}`);
  const hash = deps.checkpointHash ?? checkpointHashOf(config.checkpoint);
  const sizes = planChildren(config, hash)[0].config;
  loadSplit('validation', sizes.validation.problems);
  for (const split of sizes.evaluation.splits) loadSplit(split, sizes.evaluation.problems);
  return hash;
}

export async function runFinetuneCommand(argv: readonly string[], deps: FinetuneCommandDeps = {}): Promise<{ runId: string; files: string[] }> {
  const { config, args } = resolveConfig(finetuneConfigSchema, FINETUNE_EXPERIMENT, argv, FINETUNE_ALIASES);
  const checkpointHash = precheckFinetune(config, deps);
  const backend = deps.backend ?? (await engineBackend());
  const store = openStore(args.store);
  try {
    const runId = await withRun(
      store,
      { experiment: FINETUNE_EXPERIMENT, name: 'finetune', config, seed: null, backend, tags: { ...codeStateTags(), checkpointHash }, argv: process.argv },
      async (run) => {
        await computeFinetune({ store, run, config, checkpointHash, backend, train: deps.train });
        return run.id;
      },
    );
    const outDir = args.out ?? path.join(repoRoot(), 'results', FINETUNE_EXPERIMENT);
    const files = await renderExperiment(FINETUNE_EXPERIMENT, store, runId, outDir);
    return { runId, files };
  } finally {
    store.close();
  }
}
