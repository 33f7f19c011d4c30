import { Rng, UserError } from '@rred/core';
import { truncatedMc } from './mc';
import { exactValue } from './testing/enumerate';
import { toyModel, toyReward, toySegments, toyTokens, toyTrace } from './testing/toy-setup';
import { truncationLoss } from './truncation';

const model = toyModel();
const trace = toyTrace(model);
const sequence = [...trace.prompt, ...trace.completion];
const exitAt = [2, 4, 5, 7];
const inputs = { tokens: toyTokens, reward: toyReward };

describe('truncatedMc', () => {
  const config = { samplesPerExitPoint: 2000, maxNewTokens: 6, batchSize: 1000 };
  let run: Awaited<ReturnType<typeof truncatedMc>>;
  beforeAll(async () => {
    run = await truncatedMc(model, trace, toySegments, inputs, config, new Rng(2024));
  });

  it('converges to the enumerated true value within 3 standard errors (n = 2000)', () => {
    for (let k = 0; k < exitAt.length; k++) {
      const truth = exactValue(model, sequence.slice(0, exitAt[k]), 6, toyReward, toyTokens);
      const se = run.extra.standardErrors[k];
      expect(se).toBeGreaterThan(0);
      expect(Math.abs(run.values![k] - truth)).toBeLessThan(3 * se);
    }
  });

  it('credits are value differences; records cover every continuation and the cost counts them', () => {
    run.credits.forEach((r, i) => expect(r).toBeCloseTo(run.values![i + 1] - run.values![i], 12));
    expect(run.extra.records).toHaveLength(4 * 2000);
    const generated = run.extra.records.reduce((a, r) => a + r.length, 0);
    expect(run.cost.tokensGenerated).toBe(generated);
    expect(run.extra.records.some((r) => r.truncated)).toBe(true);
    expect(run.extra.records.filter((r) => r.truncated).every((r) => r.utility === 0 && r.length === 6)).toBe(true);
  });

  it('truncationLoss at M′ < M matches the enumerated value under limit M′', () => {
    const loss = truncationLoss(run.extra.records, 4);
    expect(loss.total).toBe(8000);
    expect(loss.cut).toBe(run.extra.records.filter((r) => r.truncated || r.length > 4).length);
    expect(loss.cutCorrect).toBeGreaterThan(0);
    for (let k = 0; k < exitAt.length; k++) {
      const truth = exactValue(model, sequence.slice(0, exitAt[k]), 4, toyReward, toyTokens);
      const p = loss.valuesAtLimit[k];
      const se = Math.sqrt((p * (1 - p)) / 2000);
      expect(Math.abs(p - truth)).toBeLessThan(3 * se + 1e-12);
    }
    // M′ = M loses nothing beyond what M already cut
    const same = truncationLoss(run.extra.records, 6);
    expect(same.cutCorrect).toBe(0);
    expect(same.valuesAtLimit).toEqual(run.values);
  });

  it("with horizon 'completion' matches the enumerated value under the remaining budget M − |u_≤k|", async () => {
    const M = 8;
    const res = await truncatedMc(
      model,
      trace,
      toySegments,
      inputs,
      { samplesPerExitPoint: 2000, maxNewTokens: M, horizon: 'completion', batchSize: 1000 },
      new Rng(7),
    );
    for (let k = 0; k < exitAt.length; k++) {
      const budget = M - (exitAt[k] - 2);
      expect(res.extra.records.filter((r) => r.exitPoint === k).every((r) => r.limit === budget && r.length <= budget)).toBe(true);
      const truth = exactValue(model, sequence.slice(0, exitAt[k]), budget, toyReward, toyTokens);
      expect(Math.abs(res.values![k] - truth)).toBeLessThan(3 * res.extra.standardErrors[k]);
    }
    // the run can be re-cut at a smaller total horizon
    expect(truncationLoss(res.extra.records, 7, 'completion').cut).toBeGreaterThan(truncationLoss(res.extra.records, 8, 'completion').cut);
  });

  it('scores exit points whose thinking already used the whole horizon as 0 without sampling', async () => {
    const fresh = toyModel();
    const res = await truncatedMc(
      fresh,
      trace,
      toySegments,
      inputs,
      { samplesPerExitPoint: 4, maxNewTokens: 4, horizon: 'completion' },
      new Rng(3),
    );
    // exit points with different limits share one batched call
    expect(fresh.calls.sample).toBe(1);
    expect(res.extra.records.filter((r) => r.exitPoint === 2).every((r) => r.limit === 1 && r.length <= 1)).toBe(true);
    // exit point 3 is 5 completion tokens in: budget 4 − 5 < 0
    expect(res.values![3]).toBe(0);
    expect(res.extra.records.filter((r) => r.exitPoint === 3).every((r) => r.truncated && r.length === 0)).toBe(true);
    expect(res.extra.records).toHaveLength(16);
  });

  it('is reproducible for a seed and changes with it', async () => {
    const small = { samplesPerExitPoint: 5, maxNewTokens: 6, batchSize: 7 };
    const a = await truncatedMc(model, trace, toySegments, inputs, small, new Rng(1));
    const b = await truncatedMc(model, trace, toySegments, inputs, small, new Rng(1));
    const c = await truncatedMc(model, trace, toySegments, inputs, small, new Rng(2));
    expect(b.extra.records).toEqual(a.extra.records);
    expect(c.extra.records).not.toEqual(a.extra.records);
  });

  it('rejects a bad config, a missing reward and an over-long limit', async () => {
    const err = await truncatedMc(model, trace, toySegments, inputs, { samplesPerExitPoint: 0 }, new Rng(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/samplesPerExitPoint/);
    await expect(truncatedMc(model, trace, toySegments, inputs, { maxNewTokens: 6, temprature: 1 } as never, new Rng(1))).rejects.toThrow(
      /temprature/,
    );
    await expect(truncatedMc(model, trace, toySegments, { tokens: toyTokens }, {}, new Rng(1))).rejects.toThrow(/inputs\.reward/);
    await expect(truncatedMc(model, trace, toySegments, inputs, { maxNewTokens: 100 }, new Rng(1))).rejects.toThrow(
      /maxNewTokens 100.*maxLength 32/,
    );
  });
});

describe('truncationLoss', () => {
  const rec = (exitPoint: number, length: number, truncated: boolean, utility: number, offset = 0) => ({
    exitPoint,
    offset,
    limit: 10,
    length,
    truncated,
    utility,
    correct: utility > 0,
  });
  it('counts cut and cut-correct continuations per exit point', () => {
    const records = [rec(0, 3, false, 1), rec(0, 8, false, 1), rec(0, 10, true, 0), rec(1, 6, false, 0), rec(1, 2, false, 1)];
    const loss = truncationLoss(records, 5);
    expect(loss.perExitPoint).toEqual([
      { exitPoint: 0, total: 3, cut: 2, cutCorrect: 1 },
      { exitPoint: 1, total: 2, cut: 1, cutCorrect: 0 },
    ]);
    expect(loss.valuesAtLimit).toEqual([1 / 3, 1 / 2]);
  });
  it("with horizon 'completion' the limit shrinks by the tokens already thought", () => {
    const records = [rec(0, 3, false, 1, 0), rec(1, 3, false, 1, 4), rec(1, 2, false, 1, 4)];
    // M′ = 6: exit point 1 (offset 4) may use only 2 tokens
    expect(truncationLoss(records, 6, 'completion').perExitPoint[1]).toEqual({ exitPoint: 1, total: 2, cut: 1, cutCorrect: 1 });
    expect(truncationLoss(records, 6, 'continuation').cut).toBe(0);
  });
  it('refuses a limit above the sampling limit', () => {
    expect(() => truncationLoss([rec(0, 10, true, 0)], 11)).toThrow(
      /Mprime 11 \(continuation\) exceeds the sampling limit.*at most 10 tokens/,
    );
    expect(() => truncationLoss([], 0)).toThrow(/integer ≥ 1/);
  });
});
