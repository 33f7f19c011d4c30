/**
 * MC reuse in the correlation experiment, on a tiny random transformer: exit points present in the
 * stored records are never resampled (their values are the stored means), missing ones are sampled,
 * and the cost charges the reused share of the stored cost.
 */
import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import type { ContinuationRecord } from '@rred/estimators';
import { createTransformer, Tokenizer, TransformerLM, type Trace } from '@rred/lm';
import { TASK_ALPHABET, type TaskRecord } from '@rred/tasks';
import { mcValuesWithReuse } from '../experiments/src/correlation/mc-reuse';

describe('mcValuesWithReuse', () => {
  let lm: TransformerLM;
  let trace: Trace;
  const record = { id: 'p0', problem: 'a=1+2;?a', answer: '3' } as TaskRecord;
  const mc = {
    samplesPerExitPoint: 3,
    maxNewTokens: 24,
    horizon: 'completion' as const,
    temperature: 1,
    topP: 1,
    batchSize: 64,
    progress: false,
  };

  beforeAll(async () => {
    await initEngine({ backend: 'cpu', quiet: true });
    const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
    lm = new TransformerLM(
      createTransformer({ vocabSize: tokenizer.vocabSize, contextLength: 48, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 }, new Rng(0)),
      tokenizer,
    );
    const prompt = [tokenizer.bos, ...tokenizer.encode(record.problem), tokenizer.think];
    const completion = [...tokenizer.encode('a=1+2=3\nb=3'), tokenizer.endThink, ...tokenizer.encode('3'), tokenizer.eos];
    const thinkEnd = completion.indexOf(tokenizer.endThink);
    trace = {
      problemId: 'p0',
      prompt,
      completion,
      logprobs: completion.map(() => -1),
      entropies: completion.map(() => 1),
      thinkEnd,
      answer: '3',
      reward: 1,
      text: '',
    };
  });

  const stored = (offsets: number[]): ContinuationRecord[] =>
    offsets.flatMap((offset, exitPoint) =>
      [1, 0, 1, 1].map((utility) => ({
        exitPoint,
        offset,
        limit: 24 - offset,
        length: 5,
        truncated: false,
        utility,
        correct: utility > 0,
      })),
    );

  it('reuses every stored exit point without sampling', async () => {
    const segments = [
      { start: 0, end: 8 },
      { start: 8, end: trace.thinkEnd },
    ];
    const cost = { method: 'mc', tokensForwarded: 300, tokensGenerated: 90, forwardPasses: 30, wallMs: 60 };
    const out = await mcValuesWithReuse(lm, trace, segments, record, mc, { records: stored([0, 8, trace.thinkEnd]), cost }, new Rng(1));
    expect(out.sampled).toBe(0);
    expect(out.values).toEqual([0.75, 0.75, 0.75]);
    expect(out.cost).toEqual(cost);
    // the records behind the values, relabelled to these exit points, in stored order
    expect(out.records).toEqual(stored([0, 8, trace.thinkEnd]));
  });

  it('samples only the exit points the stored run lacks', async () => {
    const segments = [
      { start: 0, end: 4 },
      { start: 4, end: 8 },
      { start: 8, end: trace.thinkEnd },
    ];
    const cost = { method: 'mc', tokensForwarded: 300, tokensGenerated: 90, forwardPasses: 30, wallMs: 60 };
    const out = await mcValuesWithReuse(lm, trace, segments, record, mc, { records: stored([0, 8, trace.thinkEnd]), cost }, new Rng(1));
    expect(out.sampled).toBe(1);
    expect(out.values[0]).toBe(0.75);
    expect(out.values[2]).toBe(0.75);
    expect(out.values[3]).toBe(0.75);
    // the new exit point (offset 4) is a mean of 3 samples of ζ ∈ {0, 1}
    expect([0, 1 / 3, 2 / 3, 1].some((v) => Math.abs(v - out.values[1]) < 1e-12)).toBe(true);
    expect(out.records.map((r) => r.exitPoint)).toEqual([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    expect(out.records.filter((r) => r.exitPoint === 1).every((r) => r.offset === 4)).toBe(true);
    expect(out.records.filter((r) => r.exitPoint === 2).map((r) => r.utility)).toEqual([1, 0, 1, 1]);
    // sampled continuations are charged on top of the whole stored cost (all 3 stored exit points reused)
    expect(out.cost.tokensGenerated).toBeGreaterThan(90);
  });
});
