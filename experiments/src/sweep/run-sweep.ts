/**
 * Runs a sweep as one parent run (experiment 'sweep') with one child run per grid point.
 * - Resumable: a point whose config hash already has a FINISHED run of the experiment is skipped
 *   (recorded on the parent as reused), so a restart only runs what is missing.
 * - A child that throws is marked FAILED with its message; the sweep goes on.
 * - SIGINT/SIGTERM marks the current child and the parent KILLED and stops.
 */
import { formatSeconds } from '@rred/core';
import { captureRunContext, type BackendInfo, type Run, type Store } from '@rred/results-store';
import { codeStateTags } from '../common/code-state';
import type { ExperimentDefinition } from '../common/experiment';
import { computeInto, runTags } from '../common/run-command';
import type { GridSpec, SweepPoint } from './grid';

export interface SweepOptions {
  store: Store;
  def: ExperimentDefinition;
  spec: GridSpec;
  points: SweepPoint[];
  backend: BackendInfo;
  gridFile?: string;
  argv?: string[];
  /** Called after a signal has been recorded (default: process.exit). Tests pass a no-op. */
  exit?: (code: number) => void;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

export interface SweepOutcome {
  parentId: string;
  ran: string[];
  reused: string[];
  failed: string[];
  killed: boolean;
}

export const SWEEP_EXPERIMENT = 'sweep';

export async function runSweep(opts: SweepOptions): Promise<SweepOutcome> {
  const { store, def, points } = opts;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const context = captureRunContext({ backend: opts.backend, argv: opts.argv });
  const parent = store.startRun({
    experiment: SWEEP_EXPERIMENT,
    name: `sweep-${def.name}`,
    config: {
      experiment: def.name,
      gridFile: opts.gridFile ?? null,
      base: opts.spec.base,
      grid: opts.spec.grid,
      points: points.map((p) => ({ overrides: p.overrides, configHash: p.configHash })),
    },
    seed: null,
    backend: opts.backend,
    context,
    tags: { sweepOf: def.name, ...codeStateTags() },
  });
  const outcome: SweepOutcome = { parentId: parent.id, ran: [], reused: [], failed: [], killed: false };
  let child: Run | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    outcome.killed = true;
    if (child?.isOpen) child.kill(`received ${signal}`);
    if (parent.isOpen) parent.kill(`received ${signal}`);
    exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = Date.now();
  let computed = 0;
  try {
    for (const point of points) {
      if (outcome.killed) break;
      const done = store.findFinishedRunByConfigHash(def.name, point.configHash);
      const tag = `point.${String(point.index).padStart(3, '0')}`;
      if (done) {
        outcome.reused.push(done.id);
        parent.setTags({ [tag]: `${done.id} (reused)` });
        log(`sweep ${parent.id}: point ${point.index + 1}/${points.length} (${point.label}) already FINISHED as run ${done.id}; skipped`);
        continue;
      }
      const remaining = points.length - point.index;
      const eta = computed > 0 ? formatSeconds(((Date.now() - started) / 1000 / computed) * remaining) : '?';
      log(`sweep ${parent.id}: point ${point.index + 1}/${points.length} (${point.label}), ETA for the rest ${eta}`);
      child = store.startRun({
        experiment: def.name,
        config: point.config,
        backend: opts.backend,
        parentRunId: parent.id,
        context,
        tags: { sweepPoint: point.label, ...runTags(def, point.config) },
      });
      parent.setTags({ [tag]: child.id });
      try {
        await computeInto(def, store, child, point.config, opts.backend);
        if (child.isOpen) {
          child.finish();
          outcome.ran.push(child.id);
        }
      } catch (err) {
        if (child.isOpen) {
          child.fail(err);
          outcome.failed.push(child.id);
          log(`sweep ${parent.id}: point ${point.index + 1} FAILED: ${(err as Error).message}`);
        }
      }
      computed++;
      child = null;
      await new Promise<void>((resolve) => setImmediate(resolve)); // a pending SIGINT is handled here
    }
    if (!outcome.killed && parent.isOpen) {
      parent.logMetrics({ points: points.length, ran: outcome.ran.length, reused: outcome.reused.length, failed: outcome.failed.length });
      // A sweep with a failed point is not finished: FAILED says so in `rred runs list`, and the restart
      // that runs the missing points gets a parent of its own.
      if (outcome.failed.length) parent.fail(`${outcome.failed.length} of ${points.length} points failed: runs ${outcome.failed.join(', ')}`);
      else parent.finish();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return outcome;
}
