import type { Run } from './run';
import type { StartRunOptions, Store } from './store';

/** The signals that end a run KILLED, with their numbers (the exit code is 128 + number, as without a handler). */
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

/**
 * Runs `body` inside a run and always ends the run: FINISHED when `body` resolves, FAILED (with the
 * error message) when it throws, KILLED when the process gets SIGINT/SIGTERM/SIGHUP meanwhile (then
 * the process exits with 128 + signal number, as it would have without the handler). The handler
 * writes KILLED synchronously before anything else; it runs when the event loop is next free, so the
 * store's sentinel process (sentinel.ts) marks the run KILLED at once while a long synchronous step
 * is still going, or if a launcher SIGKILLs this process before the handler gets to run. Pass `resume` to
 * continue an unfinished run instead of starting a new one.
 */
export async function withRun<T>(store: Store, opts: StartRunOptions | { resume: string }, body: (run: Run) => Promise<T> | T): Promise<T> {
  const run = 'resume' in opts ? store.resumeRun(opts.resume) : store.startRun(opts);
  const onSignal = (signal: NodeJS.Signals) => {
    if (run.isOpen) run.kill(`received ${signal}`);
    process.exit(128 + SIGNALS[signal as keyof typeof SIGNALS]);
  };
  const signals = Object.keys(SIGNALS) as (keyof typeof SIGNALS)[];
  for (const s of signals) process.on(s, onSignal);
  try {
    const result = await body(run);
    if (run.isOpen) run.finish();
    return result;
  } catch (err) {
    if (run.isOpen) run.fail(err);
    throw err;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
