/** RREDCoT's value term without the task's alignment: the start rules, and that no alignment-free variant reads the alignment. */
import { UserError } from '@rred/core';
import { rredcot } from './rredcot';
import { toyModel, toyReferences, toySegments, toyTrace } from './testing/toy-setup';
import { lineStarts } from './value-term';

const model = toyModel();
const trace = toyTrace(model);
// token 2 plays the line break here: references [1, 0], [2] and [1] have starts [0, 2], [0, 1] and [0, 1]
const tokens = { endThink: 3, eos: 4, newline: 2 };
const throwingAlignment = (): number[] => {
  throw new Error('the task alignment was read');
};
const inputs = { tokens, references: { dataset: toyReferences }, alignment: throwingAlignment };
const sequence = [...trace.prompt, ...trace.completion];
const exitAt = [2, 4, 5, 7];

/** V(s_k) of a start rule by direct products: per reference the max or mean over its line starts, then the mean over references (literal). */
function directV(k: number, rule: 'bestStart' | 'softStart'): number {
  const perRef = toyReferences.map((r) => {
    const ps = lineStarts(r.solution, 2).map((i) =>
      Math.exp(model.sequenceLogProb(sequence.slice(0, exitAt[k]), [...r.solution.slice(i), 3, ...r.answer, 4])),
    );
    return rule === 'bestStart' ? Math.max(...ps) : ps.reduce((a, b) => a + b, 0) / ps.length;
  });
  return perRef.reduce((a, b) => a + b, 0) / perRef.length;
}

describe('rredcot without the task alignment', () => {
  it('computes the start rules of V (Eq. 9) as the direct products at every exit point', async () => {
    for (const rule of ['bestStart', 'softStart'] as const) {
      const res = await rredcot(model, trace, toySegments, inputs, {
        terms: 'value',
        valueSuffix: rule,
        referencePooling: 'literal',
        space: 'log',
      });
      for (let k = 0; k < exitAt.length; k++) expect(Math.exp(res.extra.logValue![k])).toBeCloseTo(directV(k, rule), 9);
    }
  });

  it('bestStart ≥ softStart, and bestStart ≥ full (the full path is one of the starts)', async () => {
    const v = async (valueSuffix: 'full' | 'bestStart' | 'softStart') =>
      (await rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix, referencePooling: 'literal' })).extra.logValue!;
    const [full, best, soft] = [await v('full'), await v('bestStart'), await v('softStart')];
    for (let k = 0; k < exitAt.length; k++) {
      expect(best[k]).toBeGreaterThanOrEqual(soft[k] - 1e-12);
      expect(best[k]).toBeGreaterThanOrEqual(full[k] - 1e-12);
    }
  });

  it('never asks the task for an alignment in any variant but remaining', async () => {
    for (const terms of ['immediate', 'value', 'immediatePlusValue'] as const)
      for (const valueSuffix of ['full', 'bestStart', 'softStart'] as const)
        for (const exit of ['joint', 'forced'] as const)
          for (const space of ['log', 'prob'] as const)
            for (const alignment of [undefined, 'none'] as const) {
              const res = await rredcot(model, trace, toySegments, inputs, { terms, valueSuffix, exit, space, alignment });
              expect(res.credits.every(Number.isFinite)).toBe(true);
            }
  });

  it("reads the alignment for remaining (alignment 'task', its default), and refuses remaining with 'none' or other suffixes with 'task'", async () => {
    await expect(rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix: 'remaining' })).rejects.toThrow(
      'the task alignment was read',
    );
    await expect(
      rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix: 'remaining', alignment: 'none' }),
    ).rejects.toThrow(UserError);
    await expect(rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix: 'full', alignment: 'task' })).rejects.toThrow(
      /only 'remaining' reads the task's alignment/,
    );
  });

  it('start rules cost more tokens than the full path, since every start is a suffix', async () => {
    const cost = async (valueSuffix: 'full' | 'bestStart') =>
      (await rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix, scoring: 'sharedPrefix' })).cost.tokensForwarded;
    expect(await cost('bestStart')).toBeGreaterThan(await cost('full'));
  });
});
