import { rredcot, rredcotConfigSchema } from '@rred/estimators';
import { toyModel } from '@rred/estimators/testing';
import type { Trace } from '@rred/lm';
import { drawLayout, rredcotVariants } from './methods';

// vocabulary: 0, 1, 2 ordinary tokens; 3 = </think>; 4 = <eos>
const tokens = { endThink: 3, eos: 4, newline: 2 };
const model = toyModel(5);
const trace: Trace = {
  problemId: 't',
  prompt: [0, 2],
  completion: [1, 0, 2, 1, 0, 3, 1, 4],
  logprobs: new Array<number>(8).fill(-1),
  entropies: new Array<number>(8).fill(0.5),
  thinkEnd: 5,
  answer: '1',
  reward: 1,
  text: '',
};
const segments = [
  { start: 0, end: 2 },
  { start: 2, end: 3 },
  { start: 3, end: 5 },
];
const inputs = {
  tokens,
  references: { dataset: [{ solution: [1, 0, 2], answer: [1] }] },
  alignment: (thinking: readonly number[], solution: readonly number[]) => solution.slice(Math.min(thinking.length, solution.length)),
};

describe('gold methods', () => {
  const all = rredcotVariants(1, ['reorder', 'swap', 'reorderSwap'], 7);
  const variants = all.filter((v) => v.refs === 'dataset' && v.rewrite === 'canonical');

  it('lists 28 distinct variants on the dataset references as written, and 55 on own, both and the rewrites, with valid configs', () => {
    expect(variants).toHaveLength(28);
    expect(all).toHaveLength(28 + 55);
    expect(new Set(all.map((v) => v.name)).size).toBe(all.length);
    for (const v of all) expect(() => rredcotConfigSchema.parse(v.config)).not.toThrow();
    expect(variants.map((v) => v.name)).toContain('rredcot.forced.remaining.both.log');
    expect(all.map((v) => v.name)).toContain('rredcot.any.bestStart.value.prob@both~swap');
    expect(all.filter((v) => v.name.endsWith('@own')).every((v) => v.config.referenceSource === 'own')).toBe(true);
    // N keeps every reference of the source: one dataset reference and up to 7 own ones
    const n = (name: string) => all.find((v) => v.name === name)!.config.maxReferences;
    expect([n('rredcot.any.full.value.prob'), n('rredcot.any.full.value.prob@own'), n('rredcot.any.full.value.prob@both~swap')]).toEqual([
      1, 7, 8,
    ]);
  });

  it('marks exactly the remaining variants as reading the task alignment, and the others never read it', async () => {
    const throwing = {
      ...inputs,
      alignment: (): number[] => {
        throw new Error('alignment read');
      },
    };
    for (const v of variants) {
      expect(v.config.alignment ?? 'none').toBe(v.name.includes('.remaining.') ? 'task' : 'none');
      if (!v.name.includes('.remaining.')) await expect(rredcot(model, trace, segments, throwing, v.config)).resolves.toBeDefined();
    }
  });

  it("a slot named 'any' does not change the result, and one reference makes referencePooling irrelevant", async () => {
    const run = (config: object) => rredcot(model, trace, segments, inputs, config);
    for (const v of variants) {
      const ref = await run(v.config);
      const other = v.name.includes('.immediate.')
        ? { ...v.config, valueSuffix: 'remaining' }
        : v.name.includes('.value.')
          ? { ...v.config, exit: 'forced' }
          : { ...v.config, referencePooling: 'literal' };
      const alt = await run(other);
      expect([v.name, alt.credits]).toEqual([v.name, ref.credits]);
      expect(ref.credits.every(Number.isFinite)).toBe(true);
    }
    // and the named slots do matter on this model
    const a = await run({ ...variants[0].config, exit: 'forced' });
    const b = await run({ ...variants[0].config, exit: 'joint' });
    expect(a.credits).not.toEqual(b.credits);
  });

  it('@own and @both score every own reference (and @both the dataset one too)', async () => {
    const own = [
      { solution: [2], answer: [1] },
      { solution: [0, 2], answer: [1] },
    ];
    const withOwn = { ...inputs, references: { ...inputs.references, own } };
    const count = async (name: string) =>
      (await rredcot(model, trace, segments, withOwn, all.find((v) => v.name === name)!.config)).extra.referenceCount;
    expect(await count('rredcot.any.full.value.prob')).toBe(1);
    expect(await count('rredcot.any.full.value.prob@own')).toBe(2);
    expect(await count('rredcot.any.full.value.prob@both')).toBe(3);
  });

  it('lays the MC draws out one after the other at every exit point, gold first', () => {
    expect(drawLayout(256, [1, 2, 4])).toEqual([
      { method: 'gold', n: 256, start: 0 },
      { method: 'mc.n1', n: 1, start: 256 },
      { method: 'mc.n2', n: 2, start: 257 },
      { method: 'mc.n4', n: 4, start: 259 },
    ]);
  });
});
