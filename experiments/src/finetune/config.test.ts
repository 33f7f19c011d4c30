import { parseConfig } from '@rred/core';
import { finetuneConfigIssues, finetuneConfigSchema } from './config';

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
