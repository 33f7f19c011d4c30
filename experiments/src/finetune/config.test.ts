import * as path from 'path';
import { parseConfig, readJsonFile, repoRoot } from '@rred/core';
import { termsLabel } from '@rred/estimators';
import { finetuneConfigIssues, finetuneConfigSchema } from './config';
import { planChildren, planSearch } from './plan';

describe('finetune config', () => {
  it("runs the trainer's GRPO cross-field checks inside its grpo field", () => {
    expect(() => parseConfig(finetuneConfigSchema, { grpo: { promptsPerStep: 8, gradientAccumulationSteps: 3 } }, 'f.json')).toThrow(
      /f\.json[\s\S]*grpo: promptsPerStep \(8\) must be a multiple of gradientAccumulationSteps \(3\)/,
    );
    expect(() => parseConfig(finetuneConfigSchema, { grpo: { epsilon: 0.2, epsilonHigh: 0.1 } }, 'f.json')).toThrow(
      /grpo: epsilonHigh \(0\.1\) must be ≥ epsilon \(0\.2\)/,
    );
    expect(parseConfig(finetuneConfigSchema, {}, 'defaults').grpo.importanceSampling).toBe('sequenceToken');
  });

  it('names repeated seeds, methods and splits', () => {
    const c = parseConfig(finetuneConfigSchema, { seeds: [1, 1], methods: ['grpo', 'grpo'] }, 'f.json');
    expect(finetuneConfigIssues(c)).toEqual([
      expect.stringMatching(/seeds: \[1,1\] has repeats/),
      expect.stringMatching(/methods: .* has repeats/),
    ]);
  });
});

describe('the method comparison config (experiments/configs/finetune/comparison.json)', () => {
  it('plans every arm on assumptions-met and grpo + the main RREDCoT arms on embedded, ≥ 5 / ≥ 3 seeds, 200 steps, 500 problems', () => {
    const file = path.join(repoRoot(), 'experiments', 'configs', 'finetune', 'comparison.json');
    const config = parseConfig(finetuneConfigSchema, readJsonFile(file, 'config file'), file);
    expect(finetuneConfigIssues(config)).toEqual([]);
    const plans = planChildren(config, 'ckpt', 'code');
    const count = (bed: string, method: string) => plans.filter((p) => p.config.testBed === bed && p.config.method === method).length;
    for (const m of config.methods)
      expect(count('assumptionsMet', m)).toBeGreaterThanOrEqual(['grpo', 'rredcot', 'rredcot-literal'].includes(m) ? 5 : 3);
    expect(['grpo', 'rredcot', 'rredcot-literal'].map((m) => count('embedded', m))).toEqual([5, 5, 5]);
    expect(plans).toHaveLength(57);
    const rredcot = plans.find((p) => p.config.method === 'rredcot')!.config;
    expect(rredcot.steps).toBeGreaterThanOrEqual(200);
    expect(rredcot.evaluation.problems).toBe(500);
    expect(rredcot.sigma?.signHandling).toBe('aligned');
    expect(plans.find((p) => p.config.method === 'rredcot-literal')!.config.sigma?.signHandling).toBe('literal');
    expect(rredcot.estimator).toMatchObject({ exit: 'forced', valueSuffix: 'remaining', terms: 'value', space: 'prob' });
    // the terms × normalization 2×2 on the same (dataset) references: V / I + V × softmax / signed L1
    const arm = (m: string) => plans.find((p) => p.config.method === m)!.config;
    expect(arm('rredcot-l1').estimator).toEqual(rredcot.estimator);
    expect(arm('rredcot-both').estimator).toEqual(arm('rredcot-both-l1').estimator);
    expect(arm('rredcot-both').estimator).toMatchObject({
      terms: 'immediatePlusValue',
      exit: 'joint',
      valueSuffix: 'remaining',
      referenceSource: 'dataset',
    });
    expect(arm('rredcot-both').sigma).toEqual(rredcot.sigma);
    expect(arm('rredcot-l1').sigma).toEqual(arm('rredcot-both-l1').sigma);
    expect(arm('rredcot-l1').sigma).toMatchObject({ signHandling: 'aligned', normalization: 'L1' });
  });
});

describe('finetune config written with the old estimator option names', () => {
  it("reads terms 'both' and combine as the new names, and tables still print them as before", () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const c = parseConfig(finetuneConfigSchema, { rredcotBoth: { terms: 'both', combine: 'sum' } }, 'old.json');
      expect(c.rredcotBoth).toMatchObject({ terms: 'immediatePlusValue', referencePooling: 'sum' });
      // what render.ts prints for the setting: the short label of I + V is the one the committed tables show
      expect(termsLabel[c.rredcotBoth.terms]).toBe('both');
      expect(write.mock.calls.filter((call) => String(call[0]).includes('old option names'))).toHaveLength(1);
    } finally {
      write.mockRestore();
    }
  });
});

describe('the credit-controls config (experiments/configs/finetune/credit-controls.json)', () => {
  const file = path.join(repoRoot(), 'experiments', 'configs', 'finetune', 'credit-controls.json');
  const config = parseConfig(finetuneConfigSchema, readJsonFile(file, 'config file'), file);
  it('searches lr ∈ {3e-5, 1e-4, 3e-4} for grpo, rredcot and the oracle-aligned arm on every bed, 3 seeds each, and λ of grpo-ref-sft', () => {
    expect(finetuneConfigIssues(config)).toEqual([]);
    const search = planSearch(config, 'ckpt', 'code');
    const lrs = (bed: string, m: string) => search.filter((c) => c.testBed === bed && c.method === m).map((c) => c.setting.lr);
    for (const bed of ['assumptionsMet', 'embedded', 'freeForm'])
      for (const m of ['grpo', 'rredcot', 'rredcot-oracle-aligned']) expect(lrs(bed, m)).toEqual([3e-5, 1e-4, 3e-4]);
    // the free-form bed is named through the checkpoint registry
    expect(search.find((c) => c.testBed === 'freeForm')!.plans[0].config.checkpoint).toBe('packages/lm/checkpoints/free-form.ckpt');
    expect(search.every((c) => c.plans.map((p) => p.config.seed).join() === '1,2,3')).toBe(true);
    // grpo-ref-sft's λ candidates wait for grpo's lr; then they run at it
    expect(search.some((c) => c.method === 'grpo-ref-sft')).toBe(false);
    const withGrpo = planSearch(config, 'ckpt', 'code', { embedded: { grpo: { lr: 3e-4, referenceSft: 0 } } });
    const sft = withGrpo.filter((c) => c.method === 'grpo-ref-sft');
    expect(sft.map((c) => [c.testBed, c.setting.lr, c.setting.referenceSft])).toEqual([
      ['embedded', 3e-4, 0.03],
      ['embedded', 3e-4, 0.1],
      ['embedded', 3e-4, 0.3],
    ]);
    expect(() => planChildren(config, 'ckpt', 'code')).toThrow(/needs a search choice/);
  });
  it('then trains 8 seeds of grpo and rredcot and 5 of each control at the chosen settings, reusing the search children', () => {
    const chosen = {
      grpo: { lr: 3e-4, referenceSft: 0 },
      rredcot: { lr: 1e-4, referenceSft: 0 },
      'rredcot-oracle-aligned': { lr: 3e-5, referenceSft: 0 },
    };
    const choices = {
      assumptionsMet: { ...chosen, 'grpo-ref-sft': { lr: 3e-4, referenceSft: 0.1 } },
      embedded: { ...chosen, 'grpo-ref-sft': { lr: 3e-4, referenceSft: 0.3 } },
      freeForm: { ...chosen, 'grpo-ref-sft': { lr: 3e-4, referenceSft: 0.03 } },
    };
    const plans = planChildren(config, 'ckpt', 'code', choices);
    const arm = (bed: string, m: string) => plans.filter((p) => p.config.testBed === bed && p.config.method === m);
    for (const bed of ['assumptionsMet', 'embedded', 'freeForm']) {
      expect(arm(bed, 'grpo')).toHaveLength(8);
      expect(arm(bed, 'rredcot')).toHaveLength(8);
      for (const m of ['rredcot-oracle-aligned', 'sigma-shuffle', 'signed-position', 'grpo-ref-sft']) expect(arm(bed, m)).toHaveLength(5);
      // the controls run at the lr of the arm they control
      expect(arm(bed, 'sigma-shuffle')[0].config.lr).toBe(1e-4);
      expect(arm(bed, 'signed-position')[0].config.lr).toBe(1e-4);
      expect(arm(bed, 'grpo-ref-sft')[0].config.lr).toBe(3e-4);
    }
    expect(arm('embedded', 'grpo-ref-sft')[0].config.referenceSft).toBe(0.3);
    const rredcot = arm('embedded', 'rredcot')[0].config;
    expect(rredcot.estimator).toMatchObject({ terms: 'value', valueSuffix: 'softStart', space: 'prob' });
    expect(rredcot.estimator?.alignment ?? 'none').toBe('none');
    expect(arm('embedded', 'sigma-shuffle')[0].config.estimator).toEqual(rredcot.estimator);
    expect(arm('embedded', 'sigma-shuffle')[0].config.sigma).toEqual(rredcot.sigma);
    expect(arm('embedded', 'rredcot-oracle-aligned')[0].config.estimator).toMatchObject({ valueSuffix: 'remaining' });
    expect(arm('embedded', 'signed-position')[0].config.estimator).toBeNull();
    // the comparison's child at the chosen lr is the search's child of that seed (same config hash)
    const search = planSearch(config, 'ckpt', 'code', choices).flatMap((c) => c.plans);
    const byHash = new Set(search.map((p) => p.configHash));
    expect(
      arm('embedded', 'grpo')
        .filter((p) => byHash.has(p.configHash))
        .map((p) => p.config.seed),
    ).toEqual([1, 2, 3]);
    expect(
      arm('assumptionsMet', 'grpo-ref-sft')
        .filter((p) => byHash.has(p.configHash))
        .map((p) => p.config.seed),
    ).toEqual([1, 2, 3]);
    expect(arm('embedded', 'sigma-shuffle').filter((p) => byHash.has(p.configHash))).toEqual([]);
  });
});
