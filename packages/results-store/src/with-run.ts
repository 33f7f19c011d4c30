import type { Run } from './run';
import type { StartRunOptions, Store } from './store';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Runs `body` inside a run and always ends the run: FINISHED when `body` resolves, FAILED (with the
 * error message) when it throws, KILLED when the process gets SIGINT/SIGTERM meanwhile (then the
 * process exits with 128 + signal number, as it would have without the handler). Pass `resume` to
 * continue an unfinished run instead of starting a new one.
 */
export async function withRun<T>(store: Store, opts: StartRunOptions | { resume: string }, body: (run: Run) => Promise<T> | T): Promise<T> {
  const run = 'resume' in opts ? store.resumeRun(opts.resume) : store.startRun(opts);
  const onSignal = (signal: NodeJS.Signals) => {
    if (run.isOpen) run.kill(`received ${signal}`);
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    const result = await body(run);
    if (run.isOpen) run.finish();
    return result;
  } catch (err) {
    if (run.isOpen) run.fail(err);
    throw err;
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}
