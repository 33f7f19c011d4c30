/**
 * Lets pending macrotasks run. The model's sampling and scoring never leave the microtask queue, so
 * without this a SIGINT handler (run KILLED) would only fire when the whole loop is over. Long loops
 * call it between units of work (a trace, a training step, an evaluation batch, a child run), so
 * Ctrl-C takes effect within one unit.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
