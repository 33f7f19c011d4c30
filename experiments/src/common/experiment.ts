import type { Rng } from '@rred/core';
import type { BackendInfo, Run, Store } from '@rred/results-store';
import type { z } from 'zod';
import type { ServedModelRef } from './cli-args';
import type { DatasetRef } from './dataset';

/**
 * What an experiment's compute step gets: the open run to write into, the store to read from, the
 * backend recorded on the run, and the run's seeded generator — `null` for an experiment whose config
 * has no `seed` (finetune: each child run has its own seed, the parent draws nothing).
 */
export interface ComputeContext<C> {
  store: Store;
  run: Run;
  config: C;
  rng: C extends { seed: number } ? Rng : Rng | null;
  backend: BackendInfo;
  /** `--model URL --model-api API`: the served model to use instead of the config's checkpoint (null: in-process). */
  served: ServedModelRef | null;
  /** `--dataset FILE [--verifier MODULE]`: problems from a JSONL file instead of the config's split (null: the split). */
  dataset: DatasetRef | null;
}

/** Renders one run of an experiment from the store alone (no model), into results/<experiment>/. */
export interface Renderer {
  /** Tables (.md, .csv, .json) of one run into outDir; returns the files written. */
  tables(store: Store, runId: string, outDir: string): Promise<string[]> | string[];
  /** Plots (.vl.json, .svg, .png) of one run into outDir. */
  plots(store: Store, runId: string, outDir: string): Promise<string[]>;
}

/** The nx target that runs an experiment's main file (checked against project.json by registry.test.ts). */
export interface ExperimentCommand {
  /** nx project holding the target, e.g. 'experiments' (or 'lm' for `lm:evaluate`). */
  project: string;
  target: string;
  /** The main file, relative to the repository root. */
  main: string;
}

/**
 * One experiment as the commands, the renderers and the sweep see it: a strict config schema
 * (defaults in experiments/configs/<name>.json), short flag aliases, a cheap check that needs no store,
 * the backend to record, the compute step that writes everything into the run, and the renderer that
 * reads it back. Every experiment is listed once, in ../registry.ts; `experiments:tables`, the sweep
 * and the sweep report all derive from that list.
 */
export interface ExperimentDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  schema: S;
  aliases: Record<string, string>;
  /** One sentence for `--help`: what the experiment reproduces and where it writes. */
  summary?: string;
  command: ExperimentCommand;
  /** Checks needing files but no store (e.g. prompt length vs context); throws UserError. */
  precheck?(config: z.infer<S>): void;
  /**
   * Checks of what the run will read from the store (e.g. its source run), before anything is written:
   * `store` is the store opened read-only, or null when its file does not exist yet. Throws UserError.
   */
  precheckStore?(config: z.infer<S>, store: Store | null): void;
  backend(): Promise<BackendInfo>;
  compute(ctx: ComputeContext<z.infer<S>>): Promise<void>;
  /**
   * What decides the result beside the config, resolved now (see common/identity.ts): the checkpoint
   * hash, the source run "latest" resolves to, dataset file hashes. Keys are tag names: a compute that
   * records one of them itself (e.g. `checkpointHash` of the model it loaded) must record the same value.
   */
  inputs?(config: z.infer<S>, store: Store): Record<string, string>;
  /**
   * Config paths that only pick which parts run (the bench's `sections`): a run that changes only these
   * still counts as its committed config's and renders into results/<name>/ (see common/out-dir.ts).
   */
  selectors?: readonly string[];
  /**
   * Present when the experiment can run on a served model (`--model URL`): checks, before any run opens,
   * that this config can (throws UserError otherwise, e.g. a baseline that needs the weights).
   */
  checkServed?(config: z.infer<S>): void;
  /** True when the experiment takes its problems from `--dataset FILE` (else that flag is an error). */
  takesDataset?: boolean;
  /** Tags recorded when the run starts (e.g. the checkpoint hash). */
  tags?(config: z.infer<S>): Record<string, string>;
  render: Renderer;
  /**
   * The runs results/<name>/ shows (default: the newest FINISHED top-level run; sweep children are
   * rendered by the sweep report instead). The bench keeps one run per section.
   */
  runsToRender?(store: Store): string[];
  /** Present when a sweep grid may name this experiment: the run metrics its report shows (the first is plotted). */
  sweep?: { reportMetrics: readonly string[] };
}
