/**
 * An error meant for the person running a command: its message is the whole story (which field or
 * file, what was expected), so command entry points print only the message and exit non-zero,
 * with no stack trace.
 */
export class UserError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * Runs a command's main function: a UserError prints its one-line message, any other error prints
 * its stack (that is a bug, and the stack is what the next developer needs). Either exits non-zero.
 */
export function runMain(main: () => Promise<void> | void): void {
  Promise.resolve()
    .then(main)
    .catch((err: unknown) => {
      if (err instanceof UserError) {
        process.stderr.write(`error: ${err.message}\n`);
        process.exitCode = err.exitCode;
      } else {
        process.stderr.write(`internal error: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
        process.exitCode = 1;
      }
    });
}
