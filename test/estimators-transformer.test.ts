/**
 * The estimators on the real TransformerLM (small random weights): the prefix-sharing RREDCoT call
 * must equal per-exit-point calls and from-scratch scoring of every prefix ++ suffix (1e-4), and LOO
 * must equal its definition computed with from-scratch scoring.
 */
import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { createTransformer, Tokenizer, TransformerLM, type LanguageModel, type Trace } from '@rred/lm';
import { getEstimator, rredcot, rredcotBatch, truncatedMc, type RredcotConfigInput } from '@rred/estimators';

describe('estimators on TransformerLM', () => {
  const tokenizer = Tokenizer.fromAlphabet('0123456789+=');
  const tokens = { endThink: tokenizer.endThink, eos: tokenizer.eos };
  let lm: TransformerLM;
  let naive: LanguageModel;
  let trace: Trace;
  const segments = [
    { start: 0, end: 2 },
    { start: 2, end: 5 },
    { start: 5, end: 8 },
  ];
  const references = {
    dataset: [
      { solution: tokenizer.encode('1+2=3'), answer: tokenizer.encode('3') },
      { solution: tokenizer.encode('3'), answer: tokenizer.encode('03') },
    ],
  };

  beforeAll(async () => {
    await initEngine({ quiet: true });
    lm = new TransformerLM(
      createTransformer({ vocabSize: tokenizer.vocabSize, contextLength: 48, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 }, new Rng(3)),
      tokenizer,
    );
    naive = {
      vocabSize: lm.vocabSize,
      maxLength: lm.maxLength,
      scoreAfterPrefixes: (s, r) => lm.naiveScore(s, r),
      scoreBatch: (jobs) => Promise.all(jobs.map((j) => lm.naiveScore(j.sequence, j.requests))),
      sample: (p, o, rng) => lm.sample(p, o, rng),
      embeddingGradientNorms: (s, t) => lm.embeddingGradientNorms(s, t),
    };
    const prompt = tokenizer.encode('<bos>1+2=<think>');
    const completion = tokenizer.encode('12+3=1+2</think>3<eos>');
    const scored = await lm.scoreAfterPrefixes(prompt, [{ exitAt: prompt.length, suffix: completion }]);
    trace = {
      problemId: 'tf-1',
      prompt,
      completion,
      logprobs: scored.logprobs[0],
      entropies: completion.map(() => 1),
      thinkEnd: completion.indexOf(tokenizer.endThink),
      answer: '3',
      reward: 1,
      text: tokenizer.decode(completion),
    };
    expect(trace.thinkEnd).toBe(8);
  });
  afterAll(() => lm.dispose());

  it('sharedContinuation equals sharedPrefix and from-scratch scoring (1e-4) and forwards only the suffixes nothing continues', async () => {
    // the reference is the trace's own thinking, and the remaining suffix what is left of it: the value suffix at
    // exits 1–3 continues the one at exit 0, and so do the immediate and value suffixes at the last exit
    const own = { dataset: [{ solution: trace.completion.slice(0, 8), answer: tokenizer.encode('3') }] };
    const alignment = (done: readonly number[], solution: readonly number[]) => solution.slice(done.length);
    const config = { terms: 'immediatePlusValue', exit: 'joint', valueSuffix: 'remaining', space: 'log' } as const;
    const inputs = { tokens, references: own, alignment };
    const prefix = await rredcot(lm, trace, segments, inputs, { ...config, scoring: 'sharedPrefix' });
    const cont = await rredcot(lm, trace, segments, inputs, { ...config, scoring: 'sharedContinuation' });
    const scratch = await rredcot(naive, trace, segments, inputs, { ...config, scoring: 'perExitPoint' });
    cont.extra.logValues.forEach((v, k) => {
      expect(Math.abs(v - prefix.extra.logValues[k])).toBeLessThan(1e-4);
      expect(Math.abs(v - scratch.extra.logValues[k])).toBeLessThan(1e-4);
    });
    // T = prompt + 8 thinking tokens; immediate </think> 3 <eos> at 4 exits; value suffixes 8, 6, 3, 0 + 3 tokens
    const T = trace.prompt.length + 8;
    expect(prefix.cost.tokensForwarded).toBe(T + 4 * 3 + (11 + 9 + 6 + 3));
    // forwarded: the value suffix at exit 0 (11) and the immediate suffixes at exits 0–2 (3 each)
    expect(cont.cost.tokensForwarded).toBe(T + 11 + 3 * 3);
  });

  it('RREDCoT: one shared-prefix call = per-exit-point calls = from-scratch scoring (1e-4)', async () => {
    const config: RredcotConfigInput = { terms: 'immediatePlusValue', valueSuffix: 'full', space: 'log', normalization: 'L1' };
    const inputs = { tokens, references };
    const shared = await rredcot(lm, trace, segments, inputs, { ...config, scoring: 'sharedPrefix' });
    const perExit = await rredcot(lm, trace, segments, inputs, { ...config, scoring: 'perExitPoint' });
    const scratch = await rredcot(naive, trace, segments, inputs, { ...config, scoring: 'perExitPoint' });
    for (const other of [perExit, scratch]) {
      shared.extra.logValues.forEach((lv, k) => expect(Math.abs(lv - other.extra.logValues[k])).toBeLessThan(1e-4));
      shared.credits.forEach((r, i) => expect(Math.abs(r - other.credits[i])).toBeLessThan(1e-4));
    }
    // cost T + Σ|suffix|: prefix up to the last exit point, (K+1) × (2 immediate + 2 value suffixes)
    const suffixTokens = 1 + 1 + 1 + (1 + 2 + 1) + (5 + 1 + 1 + 1) + (1 + 1 + 2 + 1);
    expect(shared.cost.tokensForwarded).toBe(trace.prompt.length + 8 + 4 * suffixTokens);
    expect(shared.cost.tokensForwarded).toBeLessThan(perExit.cost.tokensForwarded);
  });

  it('RREDCoT over a batch of traces (one scoreBatch call) equals each trace scored alone (1e-4)', async () => {
    const shorter = { ...trace, problemId: 'tf-2', completion: tokenizer.encode('3</think>3<eos>') };
    shorter.thinkEnd = shorter.completion.indexOf(tokenizer.endThink);
    const items = [
      { trace, segments, inputs: { tokens, references } },
      { trace: shorter, segments: [{ start: 0, end: shorter.thinkEnd }], inputs: { tokens, references } },
      {
        trace,
        segments: [
          { start: 0, end: 5 },
          { start: 5, end: 8 },
        ],
        inputs: { tokens, references: { dataset: references.dataset.slice(1) } },
      },
    ];
    const batch = await rredcotBatch(lm, items, { terms: 'immediatePlusValue', valueSuffix: 'full' });
    for (const [i, item] of items.entries()) {
      const alone = await rredcot(naive, item.trace, item.segments, item.inputs, {
        terms: 'immediatePlusValue',
        valueSuffix: 'full',
        scoring: 'perExitPoint',
      });
      batch[i].extra.logValues.forEach((lv, k) => expect(Math.abs(lv - alone.extra.logValues[k])).toBeLessThan(1e-4));
      expect(batch[i].credits).toHaveLength(alone.credits.length);
    }
  });

  it('LOO equals its definition scored from scratch; gradient and MC run on the transformer', async () => {
    const inputs = { tokens, reward: () => 1 };
    const loo = await getEstimator('loo')(lm, trace, segments, inputs, {});
    const { prompt, completion } = trace;
    for (const [i, seg] of segments.entries()) {
      const rest = completion.slice(seg.end);
      const withSeq = [...prompt, ...completion.slice(0, seg.end)];
      const withoutSeq = [...prompt, ...completion.slice(0, seg.start)];
      const a = await lm.naiveScore(withSeq, [{ exitAt: withSeq.length, suffix: rest }]);
      const b = await lm.naiveScore(withoutSeq, [{ exitAt: withoutSeq.length, suffix: rest }]);
      const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
      expect(Math.abs(loo.credits[i] - (sum(a.logprobs[0]) - sum(b.logprobs[0])))).toBeLessThan(1e-4);
    }
    const grad = await getEstimator('gradient')(lm, trace, segments, inputs, {});
    expect(grad.credits.every((g) => Number.isFinite(g) && g > 0)).toBe(true);
    const mc = await truncatedMc(lm, trace, segments, inputs, { samplesPerExitPoint: 3, maxNewTokens: 6 }, new Rng(4));
    expect(mc.extra.records).toHaveLength(4 * 3);
    // reward() = 1: V_MC is exactly the fraction of continuations that stopped within M
    mc.values!.forEach((v, k) => expect(v).toBeCloseTo(mc.extra.records.filter((r) => r.exitPoint === k && !r.truncated).length / 3, 12));
  });

  it('MC with a shared prefix gives the same draws as unshared sampling for the same seed, at fewer forwarded tokens, counted exactly', async () => {
    // n = 5 per exit point in chunks of 7, so chunks hold several exit points and split some of them
    const config = { samplesPerExitPoint: 5, maxNewTokens: 10, batchSize: 7 };
    const three = tokenizer.encode('3')[0];
    const inputs = { tokens, reward: (toks: number[]) => (toks.includes(three) ? 1 : 0) };
    const recorded = (sample: LanguageModel['sample']) => {
      const calls: { prompts: number[][]; lengths: number[]; tokens: number[][] }[] = [];
      const model: LanguageModel = {
        ...naive,
        sample: async (prompts, options, rng) => {
          const out = await sample(prompts, options, rng);
          calls.push({ prompts, lengths: out.results.map((r) => r.tokens.length), tokens: out.results.map((r) => r.tokens) });
          return out;
        },
      };
      return { model, calls };
    };
    // the reference: sampleNoCache forwards every row on its own (no prompt is shared), with the draws of the old per-row prefill
    const shared = recorded((p, o, rng) => lm.sample(p, o, rng));
    const unshared = recorded((p, o, rng) => lm.sampleNoCache(p, o, rng));
    const a = await truncatedMc(shared.model, trace, segments, inputs, config, new Rng(8));
    const b = await truncatedMc(unshared.model, trace, segments, inputs, config, new Rng(8));
    expect(shared.calls.map((c) => c.tokens)).toEqual(unshared.calls.map((c) => c.tokens));
    expect(a.extra.records).toEqual(b.extra.records);
    expect(a.values).toEqual(b.values);
    expect(new Set(a.extra.records.map((r) => r.length)).size).toBeGreaterThan(1);
    expect(a.extra.records.some((r) => r.utility > 0) && a.extra.records.some((r) => r.utility === 0)).toBe(true);
    // exact count: each chunk's distinct prompts once, then one position per live row per decode step
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    const decode = sum(shared.calls.map((c) => sum(c.lengths.map((l) => Math.max(0, l - 1)))));
    const distinctPrefill = sum(shared.calls.map((c) => sum([...new Map(c.prompts.map((p) => [p.join(','), p.length])).values()])));
    const perRowPrefill = sum(shared.calls.map((c) => sum(c.prompts.map((p) => p.length))));
    expect(shared.calls).toHaveLength(Math.ceil((4 * 5) / 7));
    expect(a.cost.tokensForwarded).toBe(distinctPrefill + decode);
    expect(a.cost.tokensGenerated).toBe(sum(shared.calls.map((c) => sum(c.lengths))));
    // the per-row prefill (each sample re-forwarding its exit point's prefix) counted Σ prompts + decode
    expect(perRowPrefill).toBeGreaterThan(distinctPrefill);
    expect(a.cost.tokensForwarded).toBeLessThan(perRowPrefill + decode);
  });
});
