/**
 * An error meant for the person running a command: its message is the whole story (which field or
 * file, what was expected), so command entry points print only the message and exit non-zero,
 * with no stack trace.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * Thrown by the command-line parser for `--help`: not a failure. runMain prints `text` to stdout and
 * exits 0; nothing after the parse runs, so no store or file is touched.
 */
export class HelpRequested extends Error {
  constructor(readonly text: string) {
    super('help requested');
    this.name = 'HelpRequested';
  }
}

/**
 * Runs a command's main function: `--help` prints the help and exits 0; a UserError prints its one-line message, any other error prints
 * its stack (that is a bug, and the stack is what the next developer needs). Either exits non-zero.
 */
export function runMain(main: () => Promise<void> | void): void {
  Promise.resolve()
    .then(main)
    .catch((err: unknown) => {
      if (err instanceof HelpRequested) {
        process.stdout.write(err.text);
      } else if (err instanceof UserError) {
        process.stderr.write(`error: ${err.message}\n`);
        process.exitCode = err.exitCode;
      } else {
        process.stderr.write(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exitCode = 1;
      }
    });
}
