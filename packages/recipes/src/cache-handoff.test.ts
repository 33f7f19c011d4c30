/**
 * The cache handoff through the GRPO trainer and the RREDCoT hook: the trainer samples with keepCache,
 * the hook scores from the caches (only the suffixes are forwarded), the trainer releases them after.
 */
import { Rng } from '@rred/core';
import { rredcotPresets } from '@rred/estimators';
import { initEngine, tf } from '@rred/engine';
import { Tokenizer, TransformerLM, createTransformer, type Trace } from '@rred/lm';
import { segmentationConfig } from '@rred/segmentation';
import { TASK_ALPHABET, buildDatasets, referencesById, remainingAlignment } from '@rred/tasks';
import { GrpoTrainer, parseGrpoConfig, type RedistributionHook } from '@rred/training';
import { estimatorRedistribution } from './estimator-hook';
import { taskGrpoSetup } from './task-grpo';

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('cache handoff (sampler → RREDCoT hook)', () => {
  it('gives the same σ as scoring without the caches (1e-4), forwards Σ |suffix| tokens, and frees every cache', async () => {
    const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
    const model = new TransformerLM(
      createTransformer({ vocabSize: tokenizer.vocabSize, contextLength: 160, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 }, new Rng(1)),
      tokenizer,
    );
    const records = buildDatasets(3, { train: 3, validation: 0, 'eval-easy': 0, 'eval-medium': 0, 'eval-hard': 0 }).train;
    const references = referencesById(records, tokenizer, 1);
    const hookOf = (samplerCache: boolean) =>
      estimatorRedistribution({
        method: 'rredcot',
        model,
        segmentation: segmentationConfig({ strategy: 'hybrid', maxSegments: 4 }),
        tokenText: (id) => tokenizer.tokenText(id),
        estimatorConfig: { ...rredcotPresets.dataset, terms: 'immediatePlusValue', valueSuffix: 'remaining' },
        tokens: { endThink: tokenizer.endThink, eos: tokenizer.eos },
        datasetReferences: references,
        alignment: remainingAlignment(tokenizer),
        samplerCache,
      });
    // An untrained model earns no reward, so every advantage is 0: the hook is shown advantages of 1 so
    // that it estimates every trace (which traces it estimates is all the advantages decide there).
    const run = async (samplerCache: boolean) => {
      const inner = hookOf(samplerCache);
      let traces: Trace[] = [];
      let cacheLengths: (number | undefined)[] = [];
      const hook: RedistributionHook = Object.assign(
        async (ts: Trace[], context: Parameters<RedistributionHook>[1]) => {
          traces = ts;
          cacheLengths = (context.caches ?? []).map((c) => c?.length);
          return inner(ts, { ...context, advantages: context.advantages.map(() => 1) });
        },
        { usesSamplerCache: inner.usesSamplerCache },
      );
      const trainer = new GrpoTrainer(
        taskGrpoSetup({ model, records, redistribute: hook }),
        parseGrpoConfig({ seed: 4, steps: 1, promptsPerStep: 3, groupSize: 2, maxNewTokens: 40, redistribution: 'rredcot' }),
      );
      const before = tf.memory().numTensors;
      const batch = await trainer.generate();
      expect(tf.memory().numTensors).toBe(before); // every cache released when the hook returned
      trainer.optimizer.dispose();
      return { batch, traces, cacheLengths, stats: inner.lastCall() };
    };
    const cached = await run(true);
    const plain = await run(false);
    expect(cached.traces.map((t) => t.completion)).toEqual(plain.traces.map((t) => t.completion)); // same draws
    expect(plain.cacheLengths).toEqual([]);
    cached.traces.forEach((t, i) => expect(cached.cacheLengths[i]).toBe(t.prompt.length + t.completion.length - 1));
    expect(cached.stats.estimated).toBeGreaterThan(0);
    expect(cached.stats).toMatchObject({ estimated: plain.stats.estimated, fallback: plain.stats.fallback });
    cached.batch.sigma.forEach((row, i) => row.forEach((s, t) => expect(Math.abs(s - plain.batch.sigma[i][t])).toBeLessThan(1e-4)));
    // Without the cache each estimated trace costs T + Σ|suffix| with T = prompt + thinking (the scored
    // sequence); with it, Σ|suffix| exactly when the trace closed its thinking (its cache then covers T;
    // one that never closed needs position T, which the sampler never fed, and is scored from scratch).
    expect(plain.stats.fallback).toBe(0); // every trace with a completion was estimated
    const estimated = cached.traces.filter((t) => t.completion.length > 0);
    expect(estimated).toHaveLength(plain.stats.estimated);
    const closed = estimated.filter((t) => t.thinkEnd < t.completion.length);
    expect(closed.length).toBeGreaterThan(0);
    const T = closed.reduce((n, t) => n + t.prompt.length + t.thinkEnd, 0);
    expect(cached.stats.tokensForwarded).toBe(plain.stats.tokensForwarded! - T);
    model.dispose();
  });
});
