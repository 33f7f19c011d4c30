import * as path from 'path';
import { parseConfig, readJsonFile, repoRoot } from '@rred/core';
import { termsLabel } from '@rred/estimators';
import { finetuneConfigIssues, finetuneConfigSchema, METHODS } from './config';
import { planChildren } from './plan';

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
    for (const m of METHODS)
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
