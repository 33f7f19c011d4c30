import { UserError } from '@rred/core';

/** `--name value` pairs restricted to `allowed`; anything else is a UserError listing what is accepted. */
export function parseFlags(argv: readonly string[], allowed: readonly string[], command: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : '';
    if (!allowed.includes(name)) throw new UserError(`${command}: unknown argument '${argv[i]}'; expected ${allowed.map((a) => `--${a} VALUE`).join(', ')}`);
    if (argv[i + 1] === undefined) throw new UserError(`${command}: flag --${name} needs a value`);
    out[name] = argv[i + 1];
  }
  return out;
}
