import { HelpRequested, UserError, parseCommandLine, type CommandSpec } from '@rred/core';
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

/** The parser spec of a subcommand: `rred <name>`, its flags, any number of positionals if it takes any. */
function commandSpec(c: Command): CommandSpec {
  return {
    name: `rred ${c.name}`,
    usage: `rred ${c.name}`,
    summary: c.summary,
    flags: c.flags,
    positionals: c.args ? { usage: c.args, min: 0, max: Infinity } : undefined,
  };
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
    const words = argv
      .filter((a) => !a.startsWith('-'))
      .slice(0, 2)
      .join(' ');
    const group = commands.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => `'${c.name}'`);
    const hint = group.length ? `; did you mean one of ${group.join(', ')}?` : "; 'rred --help' lists the commands";
    throw new UserError(`unknown command '${words}'${hint}`);
  }
  let args;
  try {
    args = parseCommandLine(argv.slice(command.name.split(' ').length), commandSpec(command));
  } catch (err) {
    if (!(err instanceof HelpRequested)) throw err;
    ctx.out(err.text);
    return;
  }
  await command.run(args, ctx);
}
