import { UserError } from '@rred/core';
import { parseArgs } from './args';
import type { CliContext, Command } from './command';
import { COMMANDS } from './commands';

function helpText(commands: Command[] = COMMANDS): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: rred <command> [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "run 'rred <command> --help' for a command's options. The store is --store PATH, else $RRED_STORE,",
    'else results/store.sqlite at the repository root.',
    '',
  ].join('\n');
}

function commandHelp(c: Command): string {
  const flags = Object.entries(c.flags);
  const width = Math.max(6, ...flags.map(([name, f]) => `--${name}${f.value ? ` ${f.value}` : ''}`.length));
  return [
    `usage: rred ${c.name}${c.args ? ` ${c.args}` : ''}${flags.length ? ' [options]' : ''}`,
    '',
    c.summary,
    '',
    'options:',
    ...flags.map(([name, f]) => `  ${`--${name}${f.value ? ` ${f.value}` : ''}`.padEnd(width)}  ${f.help}`),
    `  ${'--help'.padEnd(width)}  show this help`,
    '',
  ].join('\n');
}

/** Picks the command whose words match the start of argv (longest match), parses its flags, runs it. */
export async function runCli(argv: string[], ctx: CliContext, commands: Command[] = COMMANDS): Promise<void> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    ctx.out(helpText(commands));
    return;
  }
  const matches = commands
    .filter((c) => {
      const words = c.name.split(' ');
      return words.every((w, i) => argv[i] === w);
    })
    .sort((a, b) => b.name.length - a.name.length);
  const command = matches[0];
  if (!command) {
    const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2).join(' ');
    const group = commands.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => `'${c.name}'`);
    const hint = group.length ? `; did you mean one of ${group.join(', ')}?` : "; 'rred --help' lists the commands";
    throw new UserError(`unknown command '${words}'${hint}`);
  }
  const rest = argv.slice(command.name.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) {
    ctx.out(commandHelp(command));
    return;
  }
  await command.run(parseArgs(rest, command.flags, command.name), ctx);
}
