import type { Rng } from '@rred/core';
import type { BackendInfo, Run, RunContext, Store } from '@rred/results-store';
import type { z } from 'zod';

/** What an experiment's compute step gets: the open run to write into, and the store to read from. */
export interface ComputeContext<C> {
  store: Store;
  run: Run;
  config: C;
  rng: Rng;
}

/**
 * One experiment as the commands and the sweep see it: a strict config schema (defaults in
 * experiments/configs/<name>.json), short flag aliases, a cheap check that needs no store, the backend
 * to record, and the compute step that writes everything into the run. Rendering is separate
 * (render/registry.ts) and reads the store only.
 */
export interface ExperimentDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  schema: S;
  aliases: Record<string, string>;
  /** Checks needing files but no store (e.g. prompt length vs context); throws UserError. */
  precheck?(config: z.infer<S>): void;
  backend(): Promise<BackendInfo>;
  compute(ctx: ComputeContext<z.infer<S>>): Promise<void>;
  /** Tags recorded when the run starts (e.g. the checkpoint hash). */
  tags?(config: z.infer<S>): Record<string, string>;
}

export interface StartOptions {
  parentRunId?: string | null;
  context?: RunContext;
  argv?: string[];
}
