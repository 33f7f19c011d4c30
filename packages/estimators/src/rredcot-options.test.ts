import { UserError } from '@rred/core';
import { rredcot } from './rredcot';
import { parseRredcotConfig } from './rredcot-config';
import { logSumExp } from './logspace';
import type { ReferenceAlignment } from './types';
import { toyModel, toyReferences, toySegments, toyTokens, toyTrace } from './testing/toy-setup';

const model = toyModel();
const trace = toyTrace(model);
const inputs = { tokens: toyTokens, references: { dataset: toyReferences } };
const sequence = [...trace.prompt, ...trace.completion];
const exitAt = [2, 4, 5, 7];

/** A toy alignment: the reference minus as many leading tokens as the thinking has. */
const dropReached: ReferenceAlignment = (thinking, solution) => solution.slice(Math.min(thinking.length, solution.length));

describe('rredcot exit option (immediate term)', () => {
  it("'forced' equals 'joint' minus log p(</think> | s_k), at every exit point", async () => {
    const joint = await rredcot(model, trace, toySegments, inputs, { terms: 'immediate', exit: 'joint' });
    const forced = await rredcot(model, trace, toySegments, inputs, { terms: 'immediate', exit: 'forced' });
    exitAt.forEach((at, k) => {
      const logThink = model.nextLogProbs(sequence.slice(0, at))[toyTokens.endThink];
      expect(Math.abs(forced.extra.logImmediate![k] - (joint.extra.logImmediate![k] - logThink))).toBeLessThan(1e-12);
      // and it is log Σ_y p(y <eos> | s_k, </think>) scored directly
      const direct = logSumExp(
        [[1], [0, 1]].map((y) => model.sequenceLogProb([...sequence.slice(0, at), toyTokens.endThink], [...y, toyTokens.eos])),
      );
      expect(forced.extra.logImmediate![k]).toBeCloseTo(direct, 10);
    });
    expect(forced.extra.config.exit).toBe('forced');
  });

  it('leaves the value term alone', async () => {
    const joint = await rredcot(model, trace, toySegments, inputs, { terms: 'immediatePlusValue', exit: 'joint', valueSuffix: 'full' });
    const forced = await rredcot(model, trace, toySegments, inputs, { terms: 'immediatePlusValue', exit: 'forced', valueSuffix: 'full' });
    expect(forced.extra.logValue).toEqual(joint.extra.logValue);
  });
});

describe('rredcot valueSuffix option (value term)', () => {
  it("'remaining' scores the alignment's suffix after each exit point's thinking so far", async () => {
    const seen: number[][] = [];
    const alignment: ReferenceAlignment = (thinking, solution) => {
      seen.push([...thinking]);
      return dropReached(thinking, solution);
    };
    const res = await rredcot(model, trace, toySegments, { ...inputs, alignment }, { terms: 'value', valueSuffix: 'remaining' });
    // one call per exit point and reference, with the completion up to the exit point
    expect(seen).toEqual(exitAt.flatMap((at) => toyReferences.map(() => sequence.slice(2, at))));
    exitAt.forEach((at, k) => {
      const ps = toyReferences.map((r) =>
        model.sequenceLogProb(sequence.slice(0, at), [...dropReached(sequence.slice(2, at), r.solution), 3, ...r.answer, 4]),
      );
      expect(res.extra.logValue![k]).toBeCloseTo(logSumExp(ps) - Math.log(3), 10); // referencePooling 'literal': the (1/N) mean
    });
  });

  it("'full' is the whole reference path at every exit point, whatever the alignment says; the default softStart reads no alignment", async () => {
    const a = await rredcot(model, trace, toySegments, { ...inputs, alignment: dropReached }, { terms: 'value', valueSuffix: 'full' });
    const b = await rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix: 'full' });
    expect(a.extra.logValue).toEqual(b.extra.logValue);
    const byDefault = await rredcot(model, trace, toySegments, { ...inputs, alignment: dropReached }, { terms: 'value' });
    const soft = await rredcot(model, trace, toySegments, inputs, { terms: 'value', valueSuffix: 'softStart' });
    const remaining = await rredcot(
      model,
      trace,
      toySegments,
      { ...inputs, alignment: dropReached },
      { terms: 'value', valueSuffix: 'remaining' },
    );
    expect(byDefault.extra.logValue).toEqual(soft.extra.logValue);
    expect(byDefault.extra.logValue).not.toEqual(remaining.extra.logValue);
    expect(byDefault.extra.logValue).not.toEqual(a.extra.logValue);
  });

  it("'remaining' without an alignment is a UserError", async () => {
    const err = await rredcot(model, trace, toySegments, inputs, { valueSuffix: 'remaining' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/valueSuffix 'remaining' needs inputs.alignment/);
    // terms 'immediate' never builds value suffixes, so it needs none
    await expect(rredcot(model, trace, toySegments, inputs, { terms: 'immediate', valueSuffix: 'remaining' })).resolves.toBeDefined();
  });
});

describe('rredcot referencePooling option (references)', () => {
  it("'sum' over distinct pairs = 'literal' mean + log N when all value suffixes differ", async () => {
    const literal = await rredcot(model, trace, toySegments, inputs, {
      terms: 'immediatePlusValue',
      valueSuffix: 'full',
      referencePooling: 'literal',
    });
    const summed = await rredcot(model, trace, toySegments, inputs, {
      terms: 'immediatePlusValue',
      valueSuffix: 'full',
      referencePooling: 'sum',
    });
    summed.extra.logValue!.forEach((v, k) => expect(v).toBeCloseTo(literal.extra.logValue![k] + Math.log(3), 12));
    expect(summed.extra.logImmediate).toEqual(literal.extra.logImmediate); // I sums over distinct answers under both
  });

  it("'sum' counts a remaining suffix that two references share once", async () => {
    // both references end in [0]; after one thinking token their remaining suffixes are the same
    const refs = [
      { solution: [1, 0], answer: [1] },
      { solution: [2, 0], answer: [1] },
    ];
    const res = await rredcot(
      model,
      trace,
      toySegments,
      { tokens: toyTokens, references: { dataset: refs }, alignment: dropReached },
      { terms: 'value', valueSuffix: 'remaining', referencePooling: 'sum' },
    );
    const s0 = refs.map((r) => model.sequenceLogProb(sequence.slice(0, 2), [...r.solution, 3, 1, 4]));
    expect(res.extra.logValue![0]).toBeCloseTo(logSumExp(s0), 10);
    // at s_1 (2 thinking tokens) both remaining suffixes are empty: one continuation, counted once
    expect(res.extra.logValue![1]).toBeCloseTo(model.sequenceLogProb(sequence.slice(0, 4), [3, 1, 4]), 10);
    expect(res.extra.requestCount).toBe(2 + 1 + 1 + 1);
  });
});

describe('rredcot config: the old option names', () => {
  it("reads combine and terms 'both' as referencePooling and 'immediatePlusValue', says so in one line, and refuses both keys at once", () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const old = parseRredcotConfig({ terms: 'both', combine: 'sum' });
      expect(old).toEqual(parseRredcotConfig({ terms: 'immediatePlusValue', referencePooling: 'sum' }));
      expect(old.referencePooling).toBe('sum');
      expect(parseRredcotConfig({ combine: 'sum' }).referencePooling).toBe('sum');
      const warnings = write.mock.calls.map((c) => String(c[0]));
      expect(warnings).toEqual([
        expect.stringMatching(
          /^rredcot config: read with the old option names .*'combine' is now 'referencePooling'.*'both' is now 'immediatePlusValue'.*\n$/,
        ),
      ]);
      expect(() => parseRredcotConfig({ combine: 'sum', referencePooling: 'literal' })).toThrow(/combine/);
      expect(() => parseRredcotConfig({ terms: 'all' })).toThrow(/terms/);
    } finally {
      write.mockRestore();
    }
  });
});
