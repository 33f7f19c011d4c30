/**
 * Runs a sweep as one parent run (experiment 'sweep') with one child run per grid point.
 * - A point's identity is its config hash plus its resolved inputs (checkpoint hash, the source run
 *   "latest" resolves to, dataset hashes; common/identity.ts), resolved when the point comes up.
 * - Resumable: a point whose identity already has a FINISHED run of the experiment is skipped
 *   (recorded on the parent as reused), so a restart only runs what is missing. A replaced checkpoint
 *   or a newer source run is another identity, so the point runs again.
 * - Claimed: a child run is started only through `store.claimRun` on the identity (one transaction),
 *   so a concurrent sweep of the same grid never computes a point twice: it goes on with the other
 *   points and then waits for the claimed ones, reusing them when they finish, and computing one
 *   itself when its holder dies (dead pid on this host, stale heartbeat elsewhere) or it ends FAILED/KILLED.
 * - A child that throws is marked FAILED with its message; the sweep goes on.
 * - SIGINT/SIGTERM marks the current child and the parent KILLED and stops.
 */
import { formatSeconds, yieldToEventLoop } from '@rred/core';
import { captureRunContext, type BackendInfo, type Run, type RunContext, type Store } from '@rred/results-store';
import { codeStateTags } from '../common/code-state';
import type { ExperimentDefinition } from '../common/experiment';
import { checkInputsUsed, IDENTITY_TAG, resolveIdentity, type RunIdentity } from '../common/identity';
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
  /** How long to wait (ms) before looking again at points another process is computing. Default 2000. */
  pollMs?: number;
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

/** A point claimed by this sweep (its child run started): computed, FINISHED or FAILED (the sweep goes on). */
async function computePoint(
  opts: SweepOptions,
  parent: Run,
  point: SweepPoint,
  claimed: { child: Run; identity: RunIdentity },
  current: Current,
  outcome: SweepOutcome,
  log: (line: string) => void,
): Promise<void> {
  const { store, def } = opts;
  const { child, identity } = claimed;
  current.child = child;
  parent.setTags({ [pointTag(point)]: child.id });
  try {
    await computeInto(def, store, child, point.config, opts.backend);
    if (child.isOpen) checkInputsUsed(store, child.id, identity);
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

/**
 * The parent's record of point `index`: tag `point.NNN` = the child run computing it (`<id>`), or the
 * FINISHED run it reused (`<id> (reused)`). The sweep report reads only these.
 */
export const pointTagOf = (index: number) => `point.${String(index).padStart(3, '0')}`;
const pointTag = (point: SweepPoint) => pointTagOf(point.index);

/**
 * Ends the parent: FINISHED, or FAILED when a point failed (`rred runs list` says so, and the restart
 * that runs the missing points gets a parent of its own).
 */
function endSweepRun(parent: Run, outcome: SweepOutcome, points: number): void {
  parent.logMetrics({ points, ran: outcome.ran.length, reused: outcome.reused.length, failed: outcome.failed.length });
  if (outcome.failed.length) parent.fail(`${outcome.failed.length} of ${points} points failed: runs ${outcome.failed.join(', ')}`);
  else parent.finish();
}

/**
 * Resolves the point's identity now and claims it: the child run this sweep computes, the FINISHED run
 * to reuse, or the RUNNING run of another process to wait for.
 */
function claimPoint(
  opts: SweepOptions,
  parent: Run,
  point: SweepPoint,
  context: RunContext,
): { child: Run; identity: RunIdentity } | { finished: string } | { running: { id: string; pid: number; hostname: string } } {
  const { store, def } = opts;
  const identity = resolveIdentity(def, point.config, store);
  const claim = store.claimRun(
    {
      experiment: def.name,
      config: point.config,
      backend: opts.backend,
      parentRunId: parent.id,
      context,
      tags: { sweepPoint: point.label, ...runTags(def, point.config), ...identity.inputs },
    },
    { key: IDENTITY_TAG, value: identity.identity },
  );
  if ('run' in claim) return { child: claim.run, identity };
  if ('finished' in claim) return { finished: claim.finished.id };
  return { running: claim.running };
}

export async function runSweep(opts: SweepOptions): Promise<SweepOutcome> {
  const { store, def, points } = opts;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pollMs = opts.pollMs ?? 2000;
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
  const where = (point: SweepPoint) => `sweep ${parent.id}: point ${point.index + 1}/${points.length} (${point.label})`;
  try {
    // Points another process is computing wait in `pending`; each pass claims what it can, in grid order.
    let pending = [...points];
    const waitingOn = new Map<number, string>();
    while (pending.length > 0 && !outcome.killed) {
      const later: SweepPoint[] = [];
      for (const point of pending) {
        if (outcome.killed) break;
        const claim = claimPoint(opts, parent, point, context);
        if ('finished' in claim) {
          outcome.reused.push(claim.finished);
          parent.setTags({ [pointTag(point)]: `${claim.finished} (reused)` });
          log(`${where(point)} already FINISHED as run ${claim.finished}; skipped`);
          continue;
        }
        if ('running' in claim) {
          later.push(point);
          if (waitingOn.get(point.index) !== claim.running.id)
            log(
              `${where(point)} is being computed by run ${claim.running.id} (pid ${claim.running.pid} on ${claim.running.hostname}); left for later`,
            );
          waitingOn.set(point.index, claim.running.id);
          continue;
        }
        const left = pending.length - pending.indexOf(point);
        const eta = computed > 0 ? formatSeconds(((Date.now() - started) / 1000 / computed) * left) : '?';
        log(`${where(point)}, ETA for the rest ${eta}`);
        await computePoint(opts, parent, point, claim, current, outcome, log);
        computed++;
        await yieldToEventLoop(); // a pending SIGINT is handled here
      }
      pending = later;
      if (pending.length > 0 && !outcome.killed) await new Promise<void>((resolve) => setTimeout(resolve, pollMs));
    }
    if (!outcome.killed && parent.isOpen) endSweepRun(parent, outcome, points.length);
  } catch (err) {
    if (parent.isOpen) parent.fail(err);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return outcome;
}
