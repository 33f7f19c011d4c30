/**
 * Where an experiment command renders when no `--out` is given. results/<name>/ holds the
 * committed renders, and those must come from a committed config: the shipped defaults file
 * (experiments/configs/<name>.json) or a `--config` file git tracks, with nothing on top that changes the
 * resolved config (a flag equal to the file's value changes nothing; `selectors` such as the bench's
 * `sections` only pick what runs). Any other config — `--n 3`, an untracked config file — renders into
 * results/scratch/<name>-<config hash 12>/ (git-ignored), and the command says so before it computes.
 * Every run is tagged `committedConfig` yes/no; `experiments:tables` renders only `yes` runs (and runs
 * recorded before the tag existed) into results/.
 */
import * as path from 'path';
import { flattenConfig, isTracked, parseConfig, readJsonFile, repoRoot } from '@rred/core';
import { configHash, type RunSummary } from '@rred/results-store';
import type { ExperimentDefinition } from './experiment';

export const COMMITTED_CONFIG_TAG = 'committedConfig';

interface OutputPlan {
  outDir: string;
  /** The config is a committed file's, unchanged: its renders belong in results/<name>/. */
  committed: boolean;
  /** One line for stderr when the default results/<name>/ was set aside (null otherwise). */
  note: string | null;
}

/** Dotted config paths whose values differ between `a` and `b` (a path missing on one side counts). */
function differingPaths(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const [fa, fb] = [flattenConfig(a), flattenConfig(b)];
  return [...new Set([...Object.keys(fa), ...Object.keys(fb)])].filter((k) => fa[k] !== fb[k]).sort();
}

/**
 * The output directory and committed-ness of a run of `config`, resolved from `file` (the defaults file
 * or --config) plus overrides; `out` is --out (null: not given).
 */
export function planOutput(
  def: ExperimentDefinition,
  config: Record<string, unknown>,
  file: string,
  out: string | null,
  /** Why the run is not the committed setup whatever its config (a served model, a --dataset file). */
  setAside: readonly string[] = [],
): OutputPlan {
  const committedDir = path.join(repoRoot(), 'results', def.name);
  let differs: string[];
  try {
    const base = parseConfig(def.schema, readJsonFile(file, 'config file'), file) as Record<string, unknown>;
    differs = differingPaths(base, config).filter((k) => !(def.selectors ?? []).some((s) => k === s || k.startsWith(`${s}.`)));
  } catch {
    differs = ['(the file alone is not a valid config)'];
  }
  const fromFile = path.relative(repoRoot(), file);
  const reasons = [
    ...(differs.length ? [`it sets ${differs.join(', ')} on top of ${fromFile}`] : []),
    ...(isTracked(repoRoot(), file) ? [] : [`git does not track ${fromFile}`]),
    ...setAside,
  ];
  const committed = reasons.length === 0;
  if (out !== null || committed) return { outDir: out ?? committedDir, committed, note: null };
  const outDir = path.join(repoRoot(), 'results', 'scratch', `${def.name}-${configHash(config).slice(0, 12)}`);
  const note =
    `${def.name}: not a committed config (${reasons.join('; ')}): its tables and plots go to ` +
    `${path.relative(repoRoot(), outDir)}/ (git-ignored), not to the committed results/${def.name}/; pass --out to choose`;
  return { outDir, committed, note };
}

/** Whether results/<name>/ may show this run: recorded from a committed config, or before the tag existed. */
export function fromCommittedConfig(run: RunSummary): boolean {
  return run.tags[COMMITTED_CONFIG_TAG] !== 'no';
}
