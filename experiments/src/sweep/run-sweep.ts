/**
 * Runs a sweep as one parent run (experiment 'sweep') with one child run per grid point.
 * - Resumable: a point whose config hash already has a FINISHED run of the experiment is skipped
 *   (recorded on the parent as reused), so a restart only runs what is missing.
 * - A child that throws is marked FAILED with its message; the sweep goes on.
 * - SIGINT/SIGTERM marks the current child and the parent KILLED and stops.
 */
import { formatSeconds } from '@rred/core';
import { captureRunContext, type BackendInfo, type Run, type RunContext, type Store } from '@rred/results-store';
import { codeStateTags } from '../common/code-state';
import type { ExperimentDefinition } from '../common/experiment';
import { computeInto, runTags } from '../common/run-command';
import type { GridSpec, SweepPoint } from './grid';

interface SweepOptions {
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

interface SweepOutcome {
  parentId: string;
  ran: string[];
  reused: string[];
  failed: string[];
  killed: boolean;
}

export const SWEEP_EXPERIMENT = 'sweep';

/** The parent run: the grid, every point's config hash, the code state. */
function startSweepRun(opts: SweepOptions, context: RunContext): Run {
  const { def, points } = opts;
  return opts.store.startRun({
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
}

/** What the loop and the signal handler share: the run of the point being computed. */
interface Current {
  child: Run | null;
}

/** One point that has no FINISHED run yet: a child run of the parent, computed, FINISHED or FAILED (the sweep goes on). */
async function computePoint(
  opts: SweepOptions,
  parent: Run,
  point: SweepPoint,
  context: RunContext,
  current: Current,
  outcome: SweepOutcome,
  log: (line: string) => void,
): Promise<void> {
  const { store, def } = opts;
  const child = store.startRun({
    experiment: def.name,
    config: point.config,
    backend: opts.backend,
    parentRunId: parent.id,
    context,
    tags: { sweepPoint: point.label, ...runTags(def, point.config) },
  });
  current.child = child;
  parent.setTags({ [pointTag(point)]: child.id });
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
  current.child = null;
}

const pointTag = (point: SweepPoint) => `point.${String(point.index).padStart(3, '0')}`;

/**
 * Ends the parent: FINISHED, or FAILED when a point failed (`rred runs list` says so, and the restart
 * that runs the missing points gets a parent of its own).
 */
function endSweepRun(parent: Run, outcome: SweepOutcome, points: number): void {
  parent.logMetrics({ points, ran: outcome.ran.length, reused: outcome.reused.length, failed: outcome.failed.length });
  if (outcome.failed.length) parent.fail(`${outcome.failed.length} of ${points} points failed: runs ${outcome.failed.join(', ')}`);
  else parent.finish();
}

export async function runSweep(opts: SweepOptions): Promise<SweepOutcome> {
  const { store, def, points } = opts;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const context = captureRunContext({ backend: opts.backend, argv: opts.argv });
  const parent = startSweepRun(opts, context);
  const outcome: SweepOutcome = { parentId: parent.id, ran: [], reused: [], failed: [], killed: false };
  const current: Current = { child: null };
  const onSignal = (signal: NodeJS.Signals) => {
    outcome.killed = true;
    if (current.child?.isOpen) current.child.kill(`received ${signal}`);
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
      if (done) {
        outcome.reused.push(done.id);
        parent.setTags({ [pointTag(point)]: `${done.id} (reused)` });
        log(`sweep ${parent.id}: point ${point.index + 1}/${points.length} (${point.label}) already FINISHED as run ${done.id}; skipped`);
        continue;
      }
      const eta = computed > 0 ? formatSeconds(((Date.now() - started) / 1000 / computed) * (points.length - point.index)) : '?';
      log(`sweep ${parent.id}: point ${point.index + 1}/${points.length} (${point.label}), ETA for the rest ${eta}`);
      await computePoint(opts, parent, point, context, current, outcome, log);
      computed++;
      await new Promise<void>((resolve) => setImmediate(resolve)); // a pending SIGINT is handled here
    }
    if (!outcome.killed && parent.isOpen) endSweepRun(parent, outcome, points.length);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return outcome;
}
