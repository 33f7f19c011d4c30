import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Rng, parseConfig } from '@rred/core';
import { initEngine } from '@rred/engine';
import { BigramPolicy } from '../testing';
import { SftTrainer } from './sft';
import { sftConfigSchema } from './configs/sft';
import type { SftExample } from './batching';

// A corpus where the completion is a deterministic chain 3→4→5→6 after a prompt 1,2: learnable by a bigram.
function corpus(n: number, rng: Rng): SftExample[] {
  return Array.from({ length: n }, () => {
    const start = rng.int(3, 5);
    const completion = [start];
    while (completion[completion.length - 1] < 7) completion.push(completion[completion.length - 1] + 1);
    return { prompt: [1, 2], completion };
  });
}

const config = parseConfig(
  sftConfigSchema,
  { seed: 5, steps: 12, batchSize: 4, contextLength: 16, optimizer: { lr: 0.05, warmupSteps: 2 } },
  'test',
);

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('SftTrainer', () => {
  it('decreases the completion loss on a learnable corpus', () => {
    const policy = new BigramPolicy(8, 8, new Rng(1));
    const data = corpus(20, new Rng(2));
    const trainer = new SftTrainer(policy, data, { ...config, steps: 40 }, 0);
    const before = trainer.evaluateLoss(data);
    for (let i = 0; i < 40; i++) trainer.trainStep();
    const after = trainer.evaluateLoss(data);
    expect(Number.isFinite(before)).toBe(true);
    // loss must at least halve; the chain is nearly deterministic so it can go much lower
    expect(after).toBeLessThan(before * 0.5);
    policy.dispose();
  });

  it('does not train prompt tokens', () => {
    const policy = new BigramPolicy(8, 4, new Rng(1));
    // two corpora that differ only in their prompts give the same loss if prompts are masked... except
    // through conditioning; use prompts whose last token is the same so conditioning is identical too.
    const a: SftExample[] = [{ prompt: [1, 2], completion: [3, 4] }];
    const b: SftExample[] = [{ prompt: [5, 6, 7, 2], completion: [3, 4] }];
    const ta = new SftTrainer(policy, a, config, 0);
    const tb = new SftTrainer(policy, b, config, 0);
    expect(ta.evaluateLoss(a)).toBeCloseTo(tb.evaluateLoss(b), 6);
    policy.dispose();
  });

  it('resumes to an identical continuation', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sft-resume-'));
    const file = path.join(dir, 'state.bin');
    const data = corpus(7, new Rng(3)); // 7 examples, batch 4: epochs cross mid-batch

    const straight = new BigramPolicy(8, 8, new Rng(9));
    const t1 = new SftTrainer(straight, data, config, 0);
    const lossesStraight: number[] = [];
    for (let i = 0; i < 6; i++) lossesStraight.push(t1.trainStep().loss);
    const finalStraight = straight.variables.map((v) => Array.from(v.dataSync()));

    const first = new BigramPolicy(8, 8, new Rng(9));
    const t2 = new SftTrainer(first, data, config, 0);
    const lossesResumed: number[] = [];
    for (let i = 0; i < 3; i++) lossesResumed.push(t2.trainStep().loss);
    t2.save(file);
    first.dispose();

    const second = new BigramPolicy(8, 8, new Rng(1234)); // different init: everything must come from the file
    const t3 = new SftTrainer(second, data, config, 0);
    t3.restore(file);
    expect(t3.step).toBe(3);
    for (let i = 0; i < 3; i++) lossesResumed.push(t3.trainStep().loss);

    expect(lossesResumed).toEqual(lossesStraight);
    expect(second.variables.map((v) => Array.from(v.dataSync()))).toEqual(finalStraight);
    straight.dispose();
    second.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rejects a state written with another seed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sft-seed-'));
    const file = path.join(dir, 'state.bin');
    const policy = new BigramPolicy(8, 4, new Rng(1));
    const data = corpus(5, new Rng(3));
    new SftTrainer(policy, data, config, 0).save(file);
    expect(() => new SftTrainer(policy, data, { ...config, seed: 6 }, 0).restore(file)).toThrow(/seed 5.*seed 6/);
    policy.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
