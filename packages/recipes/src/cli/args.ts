import * as fs from 'fs';
import { UserError } from '@rred/core';

/** `--config file.json` (JSON object) and boolean flags; anything else is a UserError naming it. */
export function parseCliArgs(argv: string[], flags: readonly string[]): { config: unknown; configSource: string; flags: Set<string> } {
  let config: unknown = {};
  let configSource = 'defaults';
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--config') {
      const file = argv[++i];
      if (!file) throw new UserError('--config needs a file path');
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (e) {
        throw new UserError(`--config ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      try {
        config = JSON.parse(text);
      } catch (e) {
        throw new UserError(`--config ${file}: not valid JSON (${(e as Error).message})`);
      }
      configSource = file;
    } else if (a.startsWith('--') && flags.includes(a.slice(2))) {
      seen.add(a.slice(2));
    } else {
      throw new UserError(`unknown argument '${a}'; expected --config <file.json>${flags.map((f) => ` | --${f}`).join('')}`);
    }
  }
  return { config, configSource, flags: seen };
}
