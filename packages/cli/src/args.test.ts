import { UserError } from '@rred/core';
import { parseArgs, type FlagSpec } from './args';

const specs: Record<string, FlagSpec> = {
  store: { type: 'string', help: '' },
  all: { type: 'boolean', help: '' },
};

describe('parseArgs', () => {
  it('reads positionals, --flag value, --flag=value and boolean flags', () => {
    expect(parseArgs(['a', '--store', 'x.sqlite', 'b', '--all'], specs, 'c')).toEqual({ positionals: ['a', 'b'], flags: { store: 'x.sqlite', all: true } });
    expect(parseArgs(['--store=y'], specs, 'c').flags.store).toBe('y');
    expect(parseArgs(['--', '--all'], specs, 'c').positionals).toEqual(['--all']);
  });

  it('rejects unknown flags, missing values, repeated flags and values on booleans with UserErrors', () => {
    expect(() => parseArgs(['--stor', 'x'], specs, 'runs list')).toThrow(/runs list: unknown option '--stor' \(known: --store, --all\)/);
    expect(() => parseArgs(['-s'], specs, 'c')).toThrow(/unknown option '-s'/);
    expect(() => parseArgs(['--store'], specs, 'c')).toThrow(/--store needs a value/);
    expect(() => parseArgs(['--store', '--all'], specs, 'c')).toThrow(/--store needs a value/);
    expect(() => parseArgs(['--all', '--all'], specs, 'c')).toThrow(/given twice/);
    expect(() => parseArgs(['--all=1'], specs, 'c')).toThrow(/takes no value/);
    expect(() => parseArgs(['--nope'], specs, 'c')).toThrow(UserError);
  });
});
