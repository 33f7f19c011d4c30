/**
 * trainChild on a tiny random transformer (cpu backend): the metric keys and steps it writes are the
 * ones load.ts reads, validation runs at 0, every N and the last step, and the eval splits get final
 * and best numbers (identical when the best checkpoint is the final one).
 */
import { initEngine } from '@rred/engine';
import { trainChild } from './child';
import { finetuneConfigSchema } from './config';
import { KEYS } from './keys';
import { planChildren } from './plan';
import { tinyChildData } from './tiny-data';

describe('trainChild', () => {
  beforeAll(async () => {
    await initEngine({ backend: 'cpu', quiet: true });
  });

  it.each([
    'grpo',
    'rredcot',
    'rredcot-oracle-aligned',
    'sigma-shuffle',
    'signed-position',
    'grpo-ref-sft',
    'verigate',
    'grail',
    'mc',
    'oracle',
    'verigate-oracle',
  ] as const)('%s: writes the validation curve, the eval table cells and the best step', async (method) => {
    const config = finetuneConfigSchema.parse({
      methods: [method],
      seeds: [4],
      steps: 3,
      grpo: { promptsPerStep: 2, groupSize: 2, maxNewTokens: 12 },
      validation: { every: 2, problems: 2, samplesPerProblem: 2 },
      evaluation: { splits: ['eval-easy', 'eval-hard'], problems: 2, samplesPerProblem: 2, batchSize: 8 },
    });
    const child = planChildren(config, 'hash')[0].config;
    const metrics: { key: string; step: number; value: number }[] = [];
    const sink = {
      logMetrics: (values: Record<string, number>, step: number) =>
        Object.entries(values).forEach(([key, value]) => metrics.push({ key, step, value })),
    };
    await trainChild(sink, child, tinyChildData(), 'test');

    const at = (key: string) => metrics.filter((m) => m.key === key);
    expect(at(KEYS.validationAvg).map((m) => m.step)).toEqual([0, 2, 3]);
    expect(at(KEYS.validationSeconds).map((m) => m.value)[0]).toBe(0);
    expect(at('grpo.stepMs').map((m) => m.step)).toEqual([1, 2, 3]);
    if (method !== 'grpo' && method !== 'grpo-ref-sft') expect(at(KEYS.fallback).map((m) => m.step)).toEqual([1, 2, 3]);
    else expect(at(KEYS.fallback)).toEqual([]);
    // every reward is 0, so every group is degenerate: VeriGate scores all 4 traces of each step with RREDCoT
    if (method === 'verigate' || method === 'verigate-oracle')
      expect(at(KEYS.estimated).map((m, i) => m.value + at(KEYS.fallback)[i].value)).toEqual([4, 4, 4]);
    expect(at('grpo.sigmaSumMean')).toHaveLength(3);
    // only grpo-ref-sft reads the references for an SFT term (λ = referenceSft, default 0.1)
    expect(at('grpo.referenceNll')).toHaveLength(method === 'grpo-ref-sft' ? 3 : 0);
    expect(child.referenceSft).toBe(method === 'grpo-ref-sft' ? 0.1 : 0);
    for (const split of ['eval-easy', 'eval-hard']) {
      for (const which of ['final', 'best'] as const) {
        const v = at(KEYS.evalAvg(which, split));
        expect(v).toHaveLength(1);
        expect(v[0].value).toBeGreaterThanOrEqual(0);
        expect(v[0].value).toBeLessThanOrEqual(1);
      }
    }
    const bestStep = at(KEYS.bestStep)[0].value;
    const validation = at(KEYS.validationAvg);
    // the best step is the first with the highest validation avg (ties keep the earlier checkpoint)
    const top = Math.max(...validation.map((m) => m.value));
    expect(bestStep).toBe(validation.find((m) => m.value === top)!.step);
    // a random model never answers right: every validation is 0, so the best is step 0 (restored from
    // memory), and with zero-spread groups the weights never moved: best and final numbers coincide
    expect(validation.every((m) => m.value === 0)).toBe(true);
    expect(bestStep).toBe(0);
    for (const split of ['eval-easy', 'eval-hard'])
      expect(at(KEYS.evalAvg('best', split))[0].value).toBe(at(KEYS.evalAvg('final', split))[0].value);
    expect(at(KEYS.trainSeconds)[0].value).toBeGreaterThan(0);
  });

  it("reuses the parent's start evaluation when the best checkpoint is step 0, and evaluates otherwise", async () => {
    const config = finetuneConfigSchema.parse({
      methods: ['grpo'],
      seeds: [4],
      steps: 2,
      grpo: { promptsPerStep: 2, groupSize: 2, maxNewTokens: 12 },
      validation: { every: 2, problems: 2, samplesPerProblem: 1 },
      evaluation: { splits: ['eval-easy'], problems: 2, samplesPerProblem: 1, batchSize: 8 },
    });
    const child = planChildren(config, 'hash')[0].config;
    const bestOf = async (start?: Map<number, { 'eval-easy': { avg: number; pass: number } }>) => {
      const metrics: Record<string, number> = {};
      const sink = { logMetrics: (values: Record<string, number>) => Object.assign(metrics, values) };
      await trainChild(sink, child, { ...tinyChildData(), start }, 'test');
      return [metrics[KEYS.bestStep], metrics[KEYS.evalAvg('best', 'eval-easy')], metrics[KEYS.evalPass('best', 'eval-easy')]];
    };
    // a random model: best step 0, evaluated numbers 0; a start result (here a marker) is taken as is
    expect(await bestOf()).toEqual([0, 0, 0]);
    expect(await bestOf(new Map([[4, { 'eval-easy': { avg: 0.25, pass: 0.5 } }]]))).toEqual([0, 0.25, 0.5]);
    // another seed's start result is not used
    expect(await bestOf(new Map([[5, { 'eval-easy': { avg: 0.25, pass: 0.5 } }]]))).toEqual([0, 0, 0]);
  });

  it("refuses GSPO 'sequence' ratios for a redistribution method before anything runs (σ would be a no-op)", () => {
    const config = finetuneConfigSchema.parse({ methods: ['grpo', 'rredcot'], grpo: { importanceSampling: 'sequence' } });
    expect(() => planChildren(config, 'hash')).toThrow(
      /grpo settings of embedded\.rredcot\.seed1[\s\S]*importanceSampling 'sequence' with redistribution 'rredcot'/,
    );
    expect(planChildren(finetuneConfigSchema.parse({ methods: ['grpo'], grpo: { importanceSampling: 'sequence' } }), 'hash')).toHaveLength(
      3,
    );
  });
});
