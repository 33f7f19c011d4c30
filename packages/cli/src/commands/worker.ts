import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot, STORE_FLAG, UserError } from '@rred/core';
import { openStoreForReading, resolveStorePath, type RunSummary, type Store } from '@rred/results-store';
import { expectPositionals, type Command } from '../command';

/** The runs a worker joins: a sweep's parent run, or a fine-tuning comparison's (its children are claimed the same way). */
const SHARED_EXPERIMENTS = new Set(['sweep', 'finetune']);

/**
 * The command line that started `run` (its recorded argv), to run here: its `--store` is dropped, the store
 * goes to it in RRED_STORE (a URL may hold a password; argv is public).
 */
function joinCommand(store: Store, runId: string): string[] {
  const detail = store.getRun(runId);
  const argv = detail.context.argv;
  if (!Array.isArray(argv) || argv.length < 2) throw new UserError(`worker: run ${runId} records no command line to join it with`);
  // argv[1] is the script; one inside the directory the run was started in is taken from this checkout
  let script = argv[1];
  const cwd = detail.context.cwd;
  if (path.isAbsolute(script) && cwd && script.startsWith(`${cwd}/`)) script = path.join(repoRoot(), path.relative(cwd, script));
  const args: string[] = [];
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === '--store') i++;
    else if (!argv[i].startsWith('--store=')) args.push(argv[i]);
  }
  return [...(/\.[cm]?ts$/.test(script) ? ['-r', 'tsx/cjs'] : []), script, ...args];
}

/** Shared runs still RUNNING, one per config (a sweep other workers joined has the same config hash), oldest first. */
function openShared(store: Store): RunSummary[] {
  const seen = new Set<string>();
  return store
    .listRuns({ status: 'RUNNING' })
    .filter((r) => r.parentRunId === null && SHARED_EXPERIMENTS.has(r.experiment))
    .filter((r) => !seen.has(r.configHash) && Boolean(seen.add(r.configHash)));
}

/** Runs one joined command to its end, passing SIGINT/SIGTERM on; resolves with its exit code. */
function runJoined(argv: string[], url: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: repoRoot(), stdio: 'inherit', env: { ...process.env, RRED_STORE: url } });
    const pass = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', pass);
    process.on('SIGTERM', pass);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', pass);
      process.off('SIGTERM', pass);
      resolve(code ?? (signal === 'SIGINT' ? 130 : 143));
    });
  });
}

/**
 * `rred worker --store URL [--sweep ID] [--wait]`: joins the open sweeps and fine-tuning comparisons of a
 * shared store. Each is joined by running the command line its parent run recorded, on this store: that
 * process claims points (and fine-tuning children) through the store one at a time, computes and records
 * them, and waits for the ones other workers hold, so any number of workers on any number of machines
 * share the work and no point is computed twice to completion. A worker killed mid-point loses its claim:
 * at once for workers on its host (its pid is gone), after the heartbeat goes stale on other hosts.
 */
export const worker: Command = {
  name: 'worker',
  summary: 'join the open sweeps / fine-tuning comparisons of a shared store (postgresql://…) and compute their points',
  flags: {
    store: STORE_FLAG,
    sweep: { type: 'string', value: 'ID', description: 'join this sweep (or fine-tuning) run only, whatever its status' },
    wait: { type: 'boolean', description: 'when nothing is open, look again every 5 s instead of exiting (until SIGINT)' },
  },
  run: async (args, ctx) => {
    expectPositionals(args, 'worker', 0, 0, 'none');
    const url = resolveStorePath(args.flags.store as string | undefined, ctx.env);
    const only = args.flags.sweep as string | undefined;
    const joined = new Set<string>();
    let failures = 0;
    for (;;) {
      const store = openStoreForReading(url);
      let next: { id: string; hash: string; argv: string[] } | null = null;
      try {
        if (only !== undefined) {
          const run = store.getRun(only);
          if (run.status === 'FINISHED') throw new UserError(`worker: run ${run.id} is FINISHED; nothing to join`);
          if (!joined.has(run.configHash)) next = { id: run.id, hash: run.configHash, argv: joinCommand(store, run.id) };
        } else {
          const open = openShared(store).find((r) => !joined.has(r.configHash));
          if (open) next = { id: open.id, hash: open.configHash, argv: joinCommand(store, open.id) };
        }
      } finally {
        store.close();
      }
      if (next === null) {
        if (only === undefined && args.flags.wait) {
          await new Promise((resolve) => setTimeout(resolve, 5000));
          continue;
        }
        break;
      }
      joined.add(next.hash);
      ctx.out(`worker: joining run ${next.id}: node ${next.argv.join(' ')}\n`);
      const code = await runJoined(next.argv, url);
      if (code === 130 || code === 143) throw new UserError(`worker: stopped by a signal while joining run ${next.id}`, code);
      if (code !== 0) failures++;
    }
    ctx.out(`worker: joined ${joined.size} run(s)${failures ? `, ${failures} ended with an error` : ''}; nothing left to join\n`);
    if (failures) throw new UserError(`worker: ${failures} joined run(s) ended with an error (see above)`, 1);
  },
};
