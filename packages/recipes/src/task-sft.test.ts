import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Rng, parseConfig } from '@rred/core';
import { initEngine } from '@rred/engine';
import { Tokenizer, createTransformer } from '@rred/lm';
import { TASK_ALPHABET, buildDatasets, tokenizeExample } from '@rred/tasks';
import { SftTrainer, sftConfigSchema, transformerPolicy } from '@rred/training';

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('SFT of the @rred/lm transformer on task examples', () => {
  const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);
  const records = buildDatasets(7, { train: 12, validation: 0, 'eval-easy': 0, 'eval-medium': 0, 'eval-hard': 0 }).train;
  const examples = records.map((r) => tokenizeExample(tokenizer, { prompt: r.problem, thinking: r.solution, answer: r.answer }));
  const modelConfig = { vocabSize: tokenizer.vocabSize, contextLength: 160, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 };
  const config = parseConfig(
    sftConfigSchema,
    { seed: 2, steps: 6, batchSize: 4, contextLength: 160, optimizer: { lr: 1e-2, warmupSteps: 1 } },
    'test',
  );

  it('lowers the loss and resumes identically', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-sft-'));
    const a = createTransformer(modelConfig, new Rng(1));
    const ta = new SftTrainer(transformerPolicy(a), examples, config, tokenizer.pad);
    const before = ta.evaluateLoss(examples);
    const straight = Array.from({ length: 6 }, () => ta.trainStep().loss);
    expect(ta.evaluateLoss(examples)).toBeLessThan(before - 0.3);

    const b = createTransformer(modelConfig, new Rng(1));
    const tb = new SftTrainer(transformerPolicy(b), examples, config, tokenizer.pad);
    const resumed = Array.from({ length: 3 }, () => tb.trainStep().loss);
    tb.save(path.join(dir, 's.bin'));
    const c = createTransformer(modelConfig, new Rng(99));
    const tc = new SftTrainer(transformerPolicy(c), examples, config, tokenizer.pad);
    tc.restore(path.join(dir, 's.bin'));
    resumed.push(...Array.from({ length: 3 }, () => tc.trainStep().loss));
    expect(resumed).toEqual(straight);
    [a, b, c].forEach((m) => m.dispose());
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
