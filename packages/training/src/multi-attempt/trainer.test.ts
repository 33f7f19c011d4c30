import { mean, Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { BigramPolicy } from '../../testing';
import { attemptWeights } from './attempt-weights';
import { parseMultiAttemptConfig } from './config';
import { MultiAttemptTrainer, sampleRollouts, type MultiAttemptSetup } from './trainer';

// Tiny task: vocabulary {pad 0, bos 1, eos 2, think 3, endThink 4, a 5, b 6, c 7, the verifier's 8}; the prompt is
// `<bos> x <think>`; an attempt is right when it starts with 'a'; after a wrong one the verifier writes `8 <think>`.
const V = 9;
const FEEDBACK = [8, 3];
const TOKENIZER = { eos: 2, endThink: 4, pad: 0, decode: (ids: readonly number[]) => ids.join(' ') };
const prompts = [5, 6, 7].map((x, i) => ({ id: `p${i}`, tokens: [1, x, 3], answer: 'a' }));

function setup(policy: BigramPolicy): MultiAttemptSetup {
  return {
    policy,
    sampler: policy,
    prompts,
    attemptReward: (_p, attempt, stopped) => ({ reward: stopped && attempt[0] === 5 ? 1 : 0, answer: null }),
    feedback: FEEDBACK,
    tokenizer: TOKENIZER,
    contextLength: 24,
  };
}

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('multi-attempt rollouts and trainer', () => {
  it('a rollout stops at its first correct attempt or after K; feedback only between attempts', async () => {
    const policy = new BigramPolicy(V, 4, new Rng(2));
    const rows = Array.from({ length: 40 }, (_, i) => prompts[i % 3]);
    const rollouts = await sampleRollouts(setup(policy), rows, { attempts: 3, maxNewTokensPerAttempt: 4, temperature: 1 }, new Rng(4));
    const lengths = new Set<number>();
    for (const r of rollouts) {
      lengths.add(r.rewards.length);
      expect(r.rewards.length).toBeLessThanOrEqual(3);
      r.rewards.slice(0, -1).forEach((x) => expect(x).toBe(0));
      const fullLength = r.prompt.tokens.length + r.completion.length;
      if (r.rewards[r.rewards.length - 1] === 0 && r.rewards.length < 3) expect(fullLength + FEEDBACK.length).toBeGreaterThanOrEqual(24); // only the context ends it early
      expect(r.feedbackPositions).toHaveLength(FEEDBACK.length * (r.rewards.length - 1));
      r.attemptStarts.slice(1).forEach((start, k) => {
        expect(r.completion.slice(start - 2, start)).toEqual(FEEDBACK);
        expect(r.feedbackPositions.slice(2 * k, 2 * k + 2)).toEqual([start - 2, start - 1]);
      });
      r.attempts.forEach((a, k) => expect(r.completion.slice(r.attemptStarts[k], r.attemptStarts[k] + a.tokens.length)).toEqual(a.tokens));
    }
    expect(lengths.size).toBeGreaterThan(1);
    policy.dispose();
  });

  it("coefficients: each attempt's tokens carry its weight / s, the feedback tokens 0 (Eq. M9)", async () => {
    const policy = new BigramPolicy(V, 4, new Rng(2));
    for (const arm of ['cal', 'naive-attempt', 'grpo'] as const) {
      const cfg = parseMultiAttemptConfig({ arm, groupSize: 4, scaleRewards: 'none' });
      const trainer = new MultiAttemptTrainer(setup(policy), cfg);
      const rows = Array.from({ length: 8 }, (_, i) => prompts[Math.floor(i / 4)]);
      const rollouts = await sampleRollouts(setup(policy), rows, { attempts: 3, maxNewTokensPerAttempt: 4, temperature: 1 }, new Rng(6));
      const w = attemptWeights(
        arm,
        rollouts.map((r) => r.rewards),
        4,
      );
      const c = await trainer.coefficients(rollouts);
      rollouts.forEach((r, i) => {
        const fb = new Set(r.feedbackPositions);
        c[i].forEach((x, t) => {
          if (fb.has(t)) expect(x).toBe(0);
          else expect(x).toBe(w[i][r.attemptStarts.filter((s) => s <= t).length - 1]);
        });
      });
    }
    policy.dispose();
  });

  it('cal raises Verification@K on the tiny task', async () => {
    const policy = new BigramPolicy(V, 8, new Rng(11));
    const cfg = parseMultiAttemptConfig({
      arm: 'cal',
      attempts: 2,
      steps: 30,
      promptsPerStep: 3,
      groupSize: 6,
      maxNewTokensPerAttempt: 4,
      optimizer: { lr: 0.15, warmupSteps: 0 },
    });
    const trainer = new MultiAttemptTrainer(setup(policy), cfg);
    const v: number[] = [];
    for (let i = 0; i < 30; i++) v.push((await trainer.trainStep()).verificationAtK);
    expect(mean(v.slice(-5))).toBeGreaterThan(mean(v.slice(0, 5)) + 0.2);
    expect(mean(v.slice(-5))).toBeGreaterThan(0.8);
    policy.dispose();
  });
});
