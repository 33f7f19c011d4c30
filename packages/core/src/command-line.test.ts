import * as path from 'path';
import { z } from 'zod';
import { commandHelp, parseCommandLine, type CommandSpec } from './command-line';
import { applyOverrides, configKeyDocs, loadCommandConfig, setPath } from './config-flags';
import { HelpRequested, UserError } from './errors';
import { repoRoot } from './repo';

const flags = {
  store: { type: 'string', value: 'FILE', path: true, description: 'results store' },
  out: { type: 'string', value: 'DIR', path: true, description: 'output directory', default: 'results/x' },
  format: { type: 'string', value: 'csv|json', description: 'output format' },
  all: { type: 'boolean', description: 'show everything' },
} as const;
const spec: CommandSpec<typeof flags> = {
  name: 'cmd',
  usage: 'npx cmd',
  summary: 'a test command',
  flags,
  positionals: { usage: '[id...]', min: 0, max: 3 },
};

const schema = z
  .object({
    seed: z.number().int().default(1).describe('seed of every draw'),
    problems: z.number().default(3).describe('how many problems'),
    mc: z
      .object({ samplesPerExitPoint: z.number().default(20).describe('MC samples') })
      .strict()
      .default({}),
    seg: z.discriminatedUnion('strategy', [
      z.object({ strategy: z.literal('a'), k: z.number() }).strict(),
      z.object({ strategy: z.literal('b'), len: z.number() }).strict(),
    ]),
  })
  .strict();
const withConfig: CommandSpec<typeof flags> = {
  ...spec,
  positionals: undefined,
  config: { keys: configKeyDocs(schema), aliases: { n: 'problems' } },
};

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('parseCommandLine', () => {
  it('reads --x v, --x=v, booleans, positionals and --', () => {
    const a = parseCommandLine(['a', '--format', 'csv', 'b', '--all', '--', '--c'], spec);
    expect(a.flags).toEqual({ store: undefined, out: undefined, format: 'csv', all: true });
    expect(a.positionals).toEqual(['a', 'b', '--c']);
    expect(parseCommandLine(['--format=json'], spec).flags.format).toBe('json');
    expect(parseCommandLine(['--format=a=b'], spec).flags.format).toBe('a=b');
    expect(parseCommandLine([], spec).flags.all).toBe(false);
  });

  it('resolves path flags against the repository root, whatever the cwd', () => {
    expect(parseCommandLine(['--store', 's.sqlite'], spec).flags.store).toBe(path.join(repoRoot(), 's.sqlite'));
    expect(parseCommandLine(['--store=/tmp/x/../s.sqlite'], spec).flags.store).toBe('/tmp/s.sqlite');
  });

  it('rejects an unknown flag in one line listing the valid ones', () => {
    const e = errorOf(() => parseCommandLine(['--stor', 'x'], spec));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe('cmd: unknown flag --stor; did you mean --store? (valid: --store, --out, --format, --all, --help)');
    expect(errorOf(() => parseCommandLine(['-s'], spec)).message).toMatch(/unknown option '-s'; options are spelled --name/);
  });

  it('rejects repeated flags instead of keeping the last', () => {
    expect(errorOf(() => parseCommandLine(['--store', 'a', '--store', 'b'], spec)).message).toBe('cmd: --store given twice; give it once');
    expect(errorOf(() => parseCommandLine(['--store=a', '--store', 'b'], spec)).message).toMatch(/given twice/);
    expect(errorOf(() => parseCommandLine(['--all', '--all'], spec)).message).toMatch(/--all given twice/);
    expect(errorOf(() => parseCommandLine(['--n', '1', '--problems', '2'], withConfig)).message).toBe(
      'cmd: --problems given twice (also as --n); give it once',
    );
  });

  it('rejects missing values, values on booleans and stray arguments', () => {
    expect(errorOf(() => parseCommandLine(['--format'], spec)).message).toBe(
      'cmd: --format needs a value (--format csv|json or --format=csv|json)',
    );
    expect(errorOf(() => parseCommandLine(['--store', '--all'], spec)).message).toMatch(/--store needs a value/);
    expect(errorOf(() => parseCommandLine(['--all=1'], spec)).message).toBe("cmd: --all takes no value, got '1'");
    expect(errorOf(() => parseCommandLine(['a', 'b', 'c', 'd'], spec)).message).toMatch(/unexpected argument 'd'; expected \[id\.\.\.\]/);
    expect(errorOf(() => parseCommandLine(['x'], withConfig)).message).toMatch(/unexpected argument 'x'; this command takes only flags/);
  });

  it("refuses empty paths: --store '' does not fall back to the default store", () => {
    expect(errorOf(() => parseCommandLine(['--store', ''], spec)).message).toBe("cmd: --store: got '', expected a file path");
    expect(errorOf(() => parseCommandLine(['--out='], spec)).message).toBe("cmd: --out: got '', expected a directory path");
    expect(errorOf(() => parseCommandLine(['--out', ' '], spec)).message).toMatch(/--out: got ' '/);
  });

  it('reads config overrides in both forms, as JSON when they parse, keeping the text as written', () => {
    const a = parseCommandLine(
      ['--n', '10', '--mc.samplesPerExitPoint=5', '--seg.strategy', 'b', '--seed=-3', '--mc', '{"samplesPerExitPoint":2}'],
      withConfig,
    );
    expect(a.overrides).toEqual({
      problems: 10,
      'mc.samplesPerExitPoint': 5,
      'seg.strategy': 'b',
      seed: -3,
      mc: { samplesPerExitPoint: 2 },
    });
    expect(a.written).toEqual({
      problems: '10',
      'mc.samplesPerExitPoint': '5',
      'seg.strategy': 'b',
      seed: '-3',
      mc: '{"samplesPerExitPoint":2}',
    });
    expect(parseCommandLine(['--seed', ''], withConfig).overrides).toEqual({ seed: '' }); // the config schema refuses it, naming the field
  });

  it("refuses every empty value, not only paths: --resume '' is not 'no --resume'", () => {
    const withResume: CommandSpec = {
      ...spec,
      flags: { ...spec.flags, resume: { type: 'string', value: 'RUN', description: 'run to resume' } },
    };
    expect(errorOf(() => parseCommandLine(['--resume', ''], withResume)).message).toBe(
      "cmd: --resume: got '', expected a value (--resume RUN)",
    );
    expect(errorOf(() => parseCommandLine(['--resume='], withResume)).message).toBe(
      "cmd: --resume: got '', expected a value (--resume RUN)",
    );
    expect(errorOf(() => parseCommandLine(['--resume', ' '], withResume)).message).toMatch(/--resume: got ' '/);
  });

  it('refuses an override that overflows to Infinity, showing it as written', () => {
    expect(errorOf(() => parseCommandLine(['--seed', '1e999'], withConfig)).message).toBe(
      'cmd: --seed: got 1e999, expected a finite number',
    );
  });

  it('rejects an unknown config path listing the valid ones, aliases included', () => {
    const e = errorOf(() => parseCommandLine(['--mc.samples', '5'], withConfig));
    expect(e.message).toMatch(
      /^cmd: unknown flag --mc\.samples \(valid: --store, --out, --format, --all, --help, --seed, --problems \(--n\), --mc, --mc\.samplesPerExitPoint, --seg, --seg\.strategy, --seg\.k, --seg\.len\)$/,
    );
    // a near miss of a flag or config path gets the likely name
    expect(errorOf(() => parseCommandLine(['--seeed', '2'], withConfig)).message).toMatch(
      /^cmd: unknown flag --seeed; did you mean --seed\? \(valid: /,
    );
    expect(errorOf(() => parseCommandLine(['--seg.strtegy', 'x'], withConfig)).message).toMatch(/did you mean --seg\.strategy\?/);
  });

  it('--help anywhere before -- wins over every other error and carries the help text', () => {
    for (const argv of [['--help'], ['-h'], ['--nope', '--help'], ['--store', '', '-h']]) {
      const e = errorOf(() => parseCommandLine(argv, withConfig));
      expect(e).toBeInstanceOf(HelpRequested);
      expect((e as HelpRequested).text).toBe(commandHelp(withConfig));
    }
    expect(parseCommandLine(['--', '--help'], spec).positionals).toEqual(['--help']);
  });
});

describe('commandHelp', () => {
  it('lists usage, flags with defaults, and config paths with their descriptions and defaults', () => {
    const text = commandHelp({ ...withConfig, config: { ...withConfig.config!, defaults: () => ({ seed: '7' }) } });
    expect(text).toMatch(/^usage: npx cmd \[flags\]\n\na test command\n/);
    expect(text).toMatch(/--out DIR +output directory \(default: results\/x\)/);
    expect(text).toMatch(/--all +show everything/);
    expect(text).toMatch(/--help, -h +print this help and exit/);
    expect(text).toMatch(/--seed +seed of every draw \[default: 7\]/);
    expect(text).toMatch(/--problems, --n +how many problems \[default: 3\]/);
    expect(text).toMatch(/--mc\.samplesPerExitPoint +MC samples \[default: 20\]/);
    expect(text).toMatch(/whole objects take a JSON object: --mc, --seg/);
  });
});

describe('config overrides', () => {
  it('setPath copies and creates intermediate objects', () => {
    const base = { mc: { n: 1 } };
    expect(setPath(base, 'mc.n', 2)).toEqual({ mc: { n: 2 } });
    expect(base.mc.n).toBe(1);
    expect(setPath({}, 'a.b', 3)).toEqual({ a: { b: 3 } });
    expect(() => setPath({ a: 5 }, 'a.b', 3)).toThrow(/'a' is not an object/);
  });

  it('applyOverrides sets every path in order', () => {
    expect(applyOverrides({ mc: { n: 1 }, k: 2 }, { 'mc.n': 3, mc2: true })).toEqual({ mc: { n: 3 }, k: 2, mc2: true });
  });

  it('loadCommandConfig: file (or schema defaults) + overrides, validated, source naming both', () => {
    const { config, source } = loadCommandConfig(schema, undefined, { problems: 5, 'seg.strategy': 'a', 'seg.k': 2 });
    expect(config).toEqual({ seed: 1, problems: 5, mc: { samplesPerExitPoint: 20 }, seg: { strategy: 'a', k: 2 } });
    expect(source).toBe('defaults + --problems, --seg.strategy, --seg.k');
    expect(() => loadCommandConfig(schema, undefined, { seed: 1.5, seg: { strategy: 'a', k: 1 } }, { seed: '1.5' })).toThrow(
      "invalid config (defaults + --seed, --seg): seed: got '1.5', expected an integer",
    );
  });

  it('loadCommandConfig: a string field takes the text as written when the flag reads as a number or boolean', () => {
    const ids = z.object({ run: z.string().default('latest'), tag: z.string().default('x'), n: z.number().default(1) }).strict();
    // a run id of digits only (hex ids are all digits about once in 280) and a word JSON reads as a boolean
    const { config } = loadCommandConfig(
      ids,
      undefined,
      { run: 274393194864, tag: true, n: 2 },
      { run: '274393194864', tag: 'true', n: '2' },
    );
    expect(config).toEqual({ run: '274393194864', tag: 'true', n: 2 });
    // leading zeros survive too: the text, not the number, is what was meant
    expect(loadCommandConfig(ids, undefined, { run: 12 }, { run: '012' }).config.run).toBe('012');
    // a number field still refuses text, and without the written text there is nothing to fall back on
    expect(() => loadCommandConfig(ids, undefined, { n: 'two' }, { n: 'two' })).toThrow(/n: .*expected a number/);
    expect(() => loadCommandConfig(ids, undefined, { run: 5 })).toThrow(/run: .*expected a string/);
  });
});
