/**
 * The scaling section on a tiny model (cpu backend): it runs end to end, its measured token counts are
 * the cost model's (the section throws otherwise), and a context too short for the MC horizon is a
 * clear error before anything runs.
 */
import { parseConfig } from '@rred/core';
import { initEngine } from '@rred/engine';
import { parseModelConfig } from '@rred/lm';
import { runScalingBench, ScalingBenchConfigSchema } from './scaling-bench';

const tiny = {
  model: { vocabSize: 16, contextLength: 72, dModel: 8, nLayers: 1, nHeads: 2, dFF: 16 },
  lengths: [12, 24, 36],
  segments: [2, 4],
  fixedK: 2,
  fixedT: 24,
  suffixTokens: 3,
  mcSamples: 2,
  trainRows: 2,
  scoredTraces: 2,
  mcTraces: 2,
  reps: 1,
  innerCalls: 2,
};

describe('bench scaling', () => {
  beforeAll(async () => {
    await initEngine({ backend: 'cpu', quiet: true });
  });

  it('measures every point with the cost model’s token counts and reports measured and predicted exponents', async () => {
    const doc = (await runScalingBench(tiny)) as {
      exponents: Record<string, number>;
      predictedExponents: Record<string, number>;
      linearWithin02: Record<string, boolean>;
      vsT: { T: number; mcTokens: number; rredcotCachedTokens: number }[];
    };
    expect(doc.vsT.map((p) => p.T)).toEqual([12, 24, 36]);
    // the trace horizon: per trace copy n·(K+1) continuations of T − 4 draws each (T − 5 forwarded after the prefill), + the distinct prefixes once
    const T = 36;
    const exits = [0, 1, 2].map((k) => 4 + Math.round((k * (T - 4)) / 2));
    expect(doc.vsT[2].mcTokens).toBe(exits.reduce((n, at) => n + at + 2 * 2 * (T - 4 - 1), 0));
    expect(doc.vsT[2].rredcotCachedTokens).toBe(2 * 3 * 3); // 2 copies × 3 exit points × 3 suffix tokens
    // cached scoring of a fixed-size suffix per exit point: the work is linear in (K+1)·|suffix| by the cost model
    expect(Math.abs(doc.predictedExponents.rredcotCachedVsKSuffix - 1)).toBeLessThan(0.1);
    expect(Object.keys(doc.linearWithin02)).toContain('rredcotCachedVsKSuffix');
    for (const v of Object.values(doc.exponents)) expect(Number.isFinite(v)).toBe(true);
  });

  it('refuses a context that cannot hold an MC continuation from the last exit point', async () => {
    await expect(runScalingBench({ ...tiny, model: { ...tiny.model, contextLength: 64 } })).rejects.toThrow(
      /model\.contextLength 64 is too short: T = 36 needs 68/,
    );
  });
});

describe('bench scaling model shape', () => {
  const probes: Record<string, number>[] = [
    { vocabSize: 1 },
    { vocabSize: 2 },
    { contextLength: 1 },
    { contextLength: 2 },
    { contextLength: 4096 },
    { contextLength: 4097 },
    { dModel: 0 },
    { dModel: 6, nHeads: 4 },
    { dModel: 4, nHeads: 4 },
    { nLayers: 0 },
    { dFF: 1 },
    { dFF: 0 },
  ];
  const verdict = (parse: () => unknown) => {
    try {
      parse();
      return 'ok';
    } catch {
      return 'refused';
    }
  };
  it.each(probes)("accepts exactly the shapes @rred/lm's model config accepts: %j", (shape) => {
    const lm = verdict(() => parseModelConfig({ vocabSize: 64, ...shape }));
    expect(verdict(() => parseConfig(ScalingBenchConfigSchema, { model: shape }, 'probe'))).toBe(lm);
  });
  it('the probes reach both verdicts', () => {
    expect(new Set(probes.map((s) => verdict(() => parseModelConfig({ vocabSize: 64, ...s }))))).toEqual(new Set(['ok', 'refused']));
  });
});
