/** @rred/cli: the `rred` command. Other packages add subcommands by adding a `Command` to COMMANDS. */
export { runCli, helpText, commandHelp } from './cli';
export { COMMANDS } from './commands';
export { parseArgs } from './args';
export type { FlagSpec, ParsedArgs } from './args';
export { STORE_FLAG, withStore, openExistingStore, expectPositionals } from './command';
export type { Command, CliContext } from './command';
export { compareRuns, comparableFields } from './compare';
export type { CompareRow } from './compare';
export { runsToCsv } from './commands/runs-export';
