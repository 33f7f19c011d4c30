import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { Tokenizer, TransformerLM, createTransformer } from '@rred/lm';
import { TASK_ALPHABET, buildDatasets } from '@rred/tasks';
import { GrpoTrainer, parseGrpoConfig } from '@rred/training';
import { taskGrpoSetup } from './task-grpo';

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('taskGrpoSetup', () => {
  it('runs GRPO steps on task prompts with the verifier as reward and the KV-cached sampler', async () => {
    const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
    const model = new TransformerLM(
      createTransformer({ vocabSize: tokenizer.vocabSize, contextLength: 96, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 }, new Rng(1)),
      tokenizer,
    );
    const records = buildDatasets(3, { train: 4, validation: 0, 'eval-easy': 0, 'eval-medium': 0, 'eval-hard': 0 }).train;
    const setup = taskGrpoSetup({ model, records });
    expect(setup.prompts[0].tokens[0]).toBe(tokenizer.bos);
    expect(setup.prompts[0].tokens[setup.prompts[0].tokens.length - 1]).toBe(tokenizer.think);
    // the verifier is the reward: the reference completion of a record scores 1, a wrong answer 0
    const r = records[0];
    const good = tokenizer.encode(`${r.solution}</think>${r.answer}<eos>`);
    const bad = tokenizer.encode(`${r.solution}</think>${(Number(r.answer) + 1) % 10}<eos>`);
    expect(setup.reward(setup.prompts[0], good, true).reward).toBe(1);
    expect(setup.reward(setup.prompts[0], bad, true).reward).toBe(0);
    expect(setup.reward(setup.prompts[0], good, false).reward).toBe(0); // truncated

    const trainer = new GrpoTrainer(
      setup,
      parseGrpoConfig({ steps: 2, promptsPerStep: 2, groupSize: 2, maxNewTokens: 12, optimizer: { lr: 1e-2, warmupSteps: 0 } }),
    );
    const m = await trainer.trainStep();
    expect(m.completionLength).toBeGreaterThan(0);
    expect(Number.isFinite(m.loss)).toBe(true);
    expect(m.truncatedFraction).toBeGreaterThanOrEqual(0);
    // an untrained model gets reward 0 everywhere: every group has zero std, so A = 0 and no gradient
    expect(m.rewardMean).toBe(0);
    expect(m.zeroStdGroups).toBe(1);
    expect(m.gradNorm).toBe(0);
    model.transformer.dispose();
  });
});
