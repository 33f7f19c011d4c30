import { UserError } from '@rred/core';
import { referenceFromTrace } from './references';
import { rredcot, rredcotBatch } from './rredcot';
import { rredcotPresets } from './rredcot-config';
import { exactValue } from './testing/enumerate';
import { toyModel, toyReferences, toyReward, toySegments, toyTokens, toyTrace } from './testing/toy-setup';

const model = toyModel();
const trace = toyTrace(model);
const inputs = { tokens: toyTokens, references: { dataset: toyReferences } };
const sequence = [...trace.prompt, ...trace.completion];
const exitAt = [2, 4, 5, 7];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/**
 * The literal reading (Eq. 2, Eq. 9 as printed, log space), which these exact checks compute by hand;
 * the defaults are the gold benchmark's choice (V with the remaining suffix, prob space), tested below.
 */
const LITERAL = { exit: 'joint', valueSuffix: 'full', referencePooling: 'literal', space: 'log' } as const;
const literal = (...[m, t, s, i, c]: Parameters<typeof rredcot>) => rredcot(m, t, s, i, { ...LITERAL, ...(c as object) });

/** Eq. 7 and Eq. 9 evaluated directly by multiplying the toy table's probabilities. */
function directI(k: number): number {
  const answers = [[1], [0, 1]]; // distinct answers of toyReferences
  return sum(answers.map((y) => Math.exp(model.sequenceLogProb(sequence.slice(0, exitAt[k]), [3, ...y, 4]))));
}
function directV(k: number): number {
  const ps = toyReferences.map((r) => Math.exp(model.sequenceLogProb(sequence.slice(0, exitAt[k]), [...r.solution, 3, ...r.answer, 4])));
  return sum(ps) / ps.length;
}

describe('rredcot', () => {
  it('computes I (Eq. 7) and V (Eq. 9) exactly as the direct products, at every exit point', async () => {
    const res = await literal(model, trace, toySegments, inputs, { terms: 'immediatePlusValue' });
    for (let k = 0; k < exitAt.length; k++) {
      expect(Math.abs(Math.exp(res.extra.logImmediate![k]) - directI(k))).toBeLessThan(1e-6);
      expect(Math.abs(Math.exp(res.extra.logValue![k]) - directV(k))).toBeLessThan(1e-6);
      expect(res.extra.logImmediate![k]).toBeCloseTo(Math.log(directI(k)), 6);
      expect(res.values![k]).toBeCloseTo(directI(k) + directV(k), 9);
    }
    expect(res.extra.distinctAnswerCount).toBe(2);
    expect(res.extra.referenceCount).toBe(3);
  });

  it('never puts V or I above the true value (Eq. 10: bias ≤ 0 when ζ ≥ 0)', async () => {
    const res = await literal(model, trace, toySegments, inputs, { terms: 'immediatePlusValue' });
    for (let k = 0; k < exitAt.length; k++) {
      const truth = exactValue(model, sequence.slice(0, exitAt[k]), 6, toyReward, toyTokens);
      expect(Math.exp(res.extra.logValue![k])).toBeLessThanOrEqual(truth);
      expect(Math.exp(res.extra.logImmediate![k])).toBeLessThanOrEqual(truth);
      // the references are distinct correct continuations, so even their un-averaged sum stays below the truth
      expect(Math.exp(res.extra.logValue![k]) * toyReferences.length).toBeLessThanOrEqual(truth);
    }
  });

  it('log-space credits telescope: Σ r_k = log v̂(s_K) − log v̂(s_0); L1 gives Σ|σ| = 1', async () => {
    for (const terms of ['immediate', 'value', 'immediatePlusValue'] as const) {
      const res = await literal(model, trace, toySegments, inputs, { terms, space: 'log', normalization: 'L1' });
      const lv = res.extra.logValues;
      expect(sum(res.credits)).toBeCloseTo(lv[lv.length - 1] - lv[0], 10);
      expect(sum(res.sigma!.map(Math.abs))).toBeCloseTo(1, 12);
    }
  });

  it('probability-space credits are differences of v̂; softmax σ sums to 1', async () => {
    const res = await literal(model, trace, toySegments, inputs, { terms: 'value', space: 'prob', normalization: 'softmax', tau: 0.5 });
    res.credits.forEach((r, i) => expect(r).toBeCloseTo(directV(i + 1) - directV(i), 9));
    expect(sum(res.sigma!)).toBeCloseTo(1, 12);
    expect(res.sigma!.every((s) => s > 0)).toBe(true);
  });

  it('scores all exit points × all suffixes in one shared-prefix call, equal to per-exit-point calls', async () => {
    const m1 = toyModel();
    const shared = await literal(m1, trace, toySegments, inputs, { terms: 'immediatePlusValue', scoring: 'sharedPrefix' });
    expect(m1.calls.score).toBe(1);
    const m2 = toyModel();
    const naive = await literal(m2, trace, toySegments, inputs, { terms: 'immediatePlusValue', scoring: 'perExitPoint' });
    expect(m2.calls.score).toBe(4);
    shared.credits.forEach((r, i) => expect(Math.abs(r - naive.credits[i])).toBeLessThan(1e-4));
    shared.values!.forEach((v, k) => expect(Math.abs(v - naive.values![k])).toBeLessThan(1e-4));
    // suffixes: 2 immediate (3 + 4 tokens) + 3 value (5 + 5 + 4 tokens) = 21 tokens per exit point
    expect(shared.extra.requestCount).toBe(4 * 5);
    expect(shared.cost.tokensForwarded).toBe(7 + 4 * 21);
    expect(naive.cost.tokensForwarded).toBe(2 + 4 + 5 + 7 + 4 * 21);
    expect(shared.cost.forwardPasses).toBe(1);
  });

  it('sharedContinuation reads a request that continues another from it: same numbers, fewer tokens', async () => {
    // one reference whose solution is the trace's own thinking, and the remaining suffix = what is left of it:
    // the value suffix at every exit point continues the one at exit 0, and so does the immediate suffix at the last
    const thinking = sequence.slice(2, 7);
    const own = { tokens: toyTokens, references: { dataset: [{ solution: thinking, answer: [1] }] } };
    const alignment = (done: readonly number[], solution: readonly number[]) => solution.slice(done.length);
    const config = { ...LITERAL, terms: 'immediatePlusValue', valueSuffix: 'remaining' } as const;
    const m1 = toyModel();
    const prefix = await rredcot(m1, trace, toySegments, { ...own, alignment }, { ...config, scoring: 'sharedPrefix' });
    const m2 = toyModel();
    const cont = await rredcot(m2, trace, toySegments, { ...own, alignment }, { ...config, scoring: 'sharedContinuation' });
    cont.values!.forEach((v, k) => expect(Math.abs(v - prefix.values![k])).toBeLessThan(1e-12));
    cont.credits.forEach((r, i) => expect(Math.abs(r - prefix.credits[i])).toBeLessThan(1e-12));
    expect(cont.extra.requestCount).toBe(prefix.extra.requestCount);
    // T = 7; immediate [3, 1, 4] at 4 exit points; value suffixes of 5 + 3, 3 + 3, 2 + 3, 0 + 3 tokens
    expect(prefix.cost.tokensForwarded).toBe(7 + 4 * 3 + (8 + 6 + 5 + 3));
    // forwarded: the value suffix at exit 0 (8) and the immediate suffixes at exits 0–2 (3 each)
    expect(cont.cost.tokensForwarded).toBe(7 + 8 + 3 * 3);
    // with the other tests' three dataset references: the same numbers as sharedPrefix, never more tokens
    const [m3, m4] = [toyModel(), toyModel()];
    const a = await literal(m3, trace, toySegments, inputs, { terms: 'immediatePlusValue', scoring: 'sharedContinuation' });
    const b = await literal(m4, trace, toySegments, inputs, { terms: 'immediatePlusValue', scoring: 'sharedPrefix' });
    a.values!.forEach((v, k) => expect(Math.abs(v - b.values![k])).toBeLessThan(1e-12));
    expect(a.cost.tokensForwarded).toBeLessThanOrEqual(b.cost.tokensForwarded);
  });

  it('runs both presets of Sec. 4, the own-answer one from the model’s correct samples', async () => {
    const own = referenceFromTrace(trace, toyTokens)!;
    // the presets follow the gold benchmark (results/gold): dataset = V with the softStart rule in prob space (no alignment), own = forced I
    const throwing = (): number[] => {
      throw new Error('the dataset preset read the task alignment');
    };
    const ds = await rredcot(model, trace, toySegments, { ...inputs, alignment: throwing }, rredcotPresets.dataset);
    expect(ds.extra.config).toMatchObject({ terms: 'value', valueSuffix: 'softStart', space: 'prob', normalization: 'L1' });
    expect(ds.credits.map((c, k) => c - (ds.values![k + 1] - ds.values![k])).every((d) => Math.abs(d) < 1e-12)).toBe(true);
    const res = await rredcot(model, trace, toySegments, { tokens: toyTokens, references: { own: [own] } }, rredcotPresets.own);
    expect(res.extra.logValue).toBeNull();
    expect(sum(res.sigma!)).toBeCloseTo(1, 12);
    // forced exit: log p(1 <eos> | s_K, </think>)
    expect(res.extra.logImmediate![3]).toBeCloseTo(model.sequenceLogProb(sequence.slice(0, 8), [1, 4]), 10);
  });

  it("defaults to the gold benchmark's best variant without the task alignment, and says what the start rules need", async () => {
    const res = await rredcot(model, trace, toySegments, inputs, {});
    expect(res.extra.config).toMatchObject({
      terms: 'value',
      exit: 'joint',
      valueSuffix: 'softStart',
      referencePooling: 'literal',
      space: 'prob',
    });
    const noNewline = { ...inputs, tokens: { endThink: 3, eos: 4 } };
    await expect(rredcot(model, trace, toySegments, noNewline, {})).rejects.toThrow(/valueSuffix 'softStart' needs tokens.newline/);
  });

  it('handles an empty reference set as configured', async () => {
    await expect(literal(model, trace, toySegments, { tokens: toyTokens }, { referenceSource: 'own' })).rejects.toThrow(
      /no references for referenceSource 'own'/,
    );
    const res = await literal(model, trace, toySegments, { tokens: toyTokens }, { emptyReferences: 'uniform' });
    expect(res.credits.every(Number.isNaN)).toBe(true);
    expect(res.sigma).toEqual([0.4, 0.2, 0.4]);
    expect(res.extra.noReferences).toBe(true);
  });

  it('handles a trace without thinking (K = 0): only s_0 is scored', async () => {
    const t = { ...trace, completion: [3, 1, 4], logprobs: [0, 0, 0], entropies: [0, 0, 0], thinkEnd: 0 };
    const res = await literal(model, t, [], inputs, {});
    expect(res.credits).toEqual([]);
    expect(res.sigma).toEqual([]);
    expect(res.values).toHaveLength(1);
  });

  it('refuses to hide a zero probability in log space', async () => {
    const zeroModel = toyModel();
    const score = zeroModel.scoreAfterPrefixes.bind(zeroModel);
    zeroModel.scoreAfterPrefixes = async (seq, reqs) => {
      const res = await score(seq, reqs);
      return { ...res, logprobs: res.logprobs.map((lp) => lp.map(() => -Infinity)) };
    };
    await expect(literal(zeroModel, trace, toySegments, inputs, { space: 'log' })).rejects.toThrow(/log v̂\(s_0\) = -Infinity/);
    const prob = await literal(zeroModel, trace, toySegments, inputs, { space: 'prob' });
    expect(prob.credits).toEqual([0, 0, 0]);
  });

  it('rredcotBatch scores several traces in one scoreBatch call and equals rredcot trace by trace', async () => {
    const other = { ...trace, problemId: 'toy-2', completion: [2, 2, 1, 3, 0, 1, 4], thinkEnd: 3 };
    const otherSegments = [
      { start: 0, end: 1 },
      { start: 1, end: 3 },
    ];
    const noRefs = { tokens: toyTokens }; // falls back to uniform without being scored
    const items = [
      { trace, segments: toySegments, inputs },
      { trace: other, segments: otherSegments, inputs: noRefs },
      { trace: other, segments: otherSegments, inputs },
    ];
    const config = { ...LITERAL, terms: 'immediatePlusValue', emptyReferences: 'uniform' } as const;
    const m = toyModel();
    const batch = await rredcotBatch(m, items, config);
    expect(m.calls).toMatchObject({ score: 0, batch: 1 });
    expect(batch[1].extra.noReferences).toBe(true);
    expect(batch[1].cost.tokensForwarded).toBe(0);
    for (const i of [0, 2]) {
      const alone = await literal(toyModel(), items[i].trace, items[i].segments, items[i].inputs, config);
      expect(batch[i].credits).toEqual(alone.credits);
      expect(batch[i].sigma).toEqual(alone.sigma);
      expect(batch[i].cost.tokensForwarded).toBe(alone.cost.tokensForwarded);
    }
    expect(batch[0].credits).not.toEqual(batch[2].credits);
  });

  it('handles a reference suffix that overflows the context as configured', async () => {
    const long = { tokens: toyTokens, references: { dataset: [{ solution: new Array(24).fill(1), answer: [1] }] } };
    await expect(literal(model, trace, toySegments, long, { terms: 'value' })).rejects.toThrow(
      /trace 'toy-1': exit point at 7 tokens \+ reference suffix of 27 tokens exceeds the model's maxLength 32.*overlong: 'uniform'/,
    );
    const m = toyModel();
    const res = await literal(m, trace, toySegments, long, { terms: 'value', overlong: 'uniform' });
    expect(res.extra.overlong).toBe(true);
    expect(res.sigma).toEqual([0.4, 0.2, 0.4]);
    expect(m.calls.score).toBe(0);
  });

  it('rejects a bad config with a UserError naming the key', async () => {
    for (const [bad, key] of [
      [{ terms: 'all' }, 'terms'],
      [{ tau: 0 }, 'tau'],
      [{ normalisation: 'L1' }, 'normalisation'],
      [{ maxReferences: 1.5 }, 'maxReferences'],
    ] as const) {
      const err = await literal(model, trace, toySegments, inputs, bad as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toContain(key);
    }
  });
});
