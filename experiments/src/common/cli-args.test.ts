import { UserError } from '@rred/core';
import { z } from 'zod';
import { parseExperimentArgs, setPath } from './cli-args';
import { configKeys } from './config-keys';

const schema = z
  .object({
    seed: z.number().default(1),
    problems: z.number().default(3),
    mc: z.object({ samplesPerExitPoint: z.number().default(20) }).strict().default({}),
    seg: z.discriminatedUnion('strategy', [
      z.object({ strategy: z.literal('a'), k: z.number() }).strict(),
      z.object({ strategy: z.literal('b'), len: z.number() }).strict(),
    ]),
  })
  .strict();

describe('experiment flags', () => {
  const keys = configKeys(schema);

  it('lists nested and union keys', () => {
    expect(keys).toEqual(expect.arrayContaining(['seed', 'problems', 'mc', 'mc.samplesPerExitPoint', 'seg', 'seg.strategy', 'seg.k', 'seg.len']));
  });

  it('parses --config, --store, aliases and JSON values', () => {
    const a = parseExperimentArgs(['--config', 'c.json', '--n', '10', '--mc.samplesPerExitPoint=5', '--seg.strategy', 'b', '--store', 's.db'], 'x', { n: 'problems' }, keys);
    expect(a).toEqual({ configFile: 'c.json', store: 's.db', out: null, overrides: { problems: 10, 'mc.samplesPerExitPoint': 5, 'seg.strategy': 'b' } });
  });

  it('rejects unknown flags, missing values, stray arguments and repeats with UserErrors naming them', () => {
    expect(() => parseExperimentArgs(['--nope', '1'], 'x', {}, keys)).toThrow(/unknown flag --nope/);
    expect(() => parseExperimentArgs(['--nope', '1'], 'x', {}, keys)).toThrow(UserError);
    expect(() => parseExperimentArgs(['--seed'], 'x', {}, keys)).toThrow(/--seed needs a value/);
    expect(() => parseExperimentArgs(['10'], 'x', {}, keys)).toThrow(/unexpected argument '10'/);
    expect(() => parseExperimentArgs(['--seed', '1', '--seed', '2'], 'x', {}, keys)).toThrow(/given twice/);
  });

  it('setPath copies and creates intermediate objects', () => {
    const base = { mc: { n: 1 } };
    expect(setPath(base, 'mc.n', 2)).toEqual({ mc: { n: 2 } });
    expect(base.mc.n).toBe(1);
    expect(setPath({}, 'a.b', 3)).toEqual({ a: { b: 3 } });
    expect(() => setPath({ a: 5 }, 'a.b', 3)).toThrow(/'a' is not an object/);
  });
});
