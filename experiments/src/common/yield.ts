/**
 * Lets pending macrotasks run. The model's sampling and scoring never leave the microtask queue, so
 * without this a SIGINT handler (run KILLED) would only fire when the whole experiment is over;
 * experiments call it between traces, so Ctrl-C takes effect within one trace.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
