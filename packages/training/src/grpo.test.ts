import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { mean, Rng } from '@rred/core';
import { initEngine, tf } from '@rred/engine';
import { BigramPolicy } from '../testing';
import { GrpoTrainer, type GrpoPrompt, type GrpoSetup, type RolloutBatch } from './grpo';
import { parseGrpoConfig, type GrpoConfig } from './configs/grpo';

// Tiny task: vocabulary {pad 0, bos 1, eos 2, think 3, endThink 4, a 5, b 6, c 7}; the prompt is
// `<bos> x <think>`; reward 1 when the completion starts with token 5 ('a'). A bigram policy controls
// p(first token | <think>) directly, so GRPO should push it up within a few steps.
const V = 8;
const TOKENIZER = { eos: 2, endThink: 4, pad: 0, decode: (ids: readonly number[]) => ids.join(' ') };
const prompts: GrpoPrompt[] = [5, 6, 7].map((x, i) => ({ id: `p${i}`, tokens: [1, x, 3] }));
const reward: GrpoSetup['reward'] = (_p, completion) => ({
  reward: completion[0] === 5 ? 1 : 0,
  answer: null,
});

function setup(policy: BigramPolicy, extra: Partial<GrpoSetup> = {}): GrpoSetup {
  return { policy, sampler: policy, prompts, reward, tokenizer: TOKENIZER, contextLength: 16, ...extra };
}

function config(overrides: Record<string, unknown> = {}): GrpoConfig {
  return parseGrpoConfig(
    { seed: 3, steps: 20, promptsPerStep: 3, groupSize: 4, maxNewTokens: 5, optimizer: { lr: 0.05, warmupSteps: 0 }, ...overrides },
    'test',
  );
}

const uniformHook: GrpoSetup['redistribute'] = async (traces) => traces.map((t) => t.completion.map(() => 1 / t.completion.length));

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('GrpoTrainer', () => {
  it('raises the mean reward on its training prompts', async () => {
    const policy = new BigramPolicy(V, 8, new Rng(11));
    const trainer = new GrpoTrainer(setup(policy), config({ steps: 30, groupSize: 6, optimizer: { lr: 0.15, warmupSteps: 0 } }));
    const rewards: number[] = [];
    for (let i = 0; i < 30; i++) rewards.push((await trainer.trainStep()).rewardMean);
    const first = mean(rewards.slice(0, 5));
    const last = mean(rewards.slice(-5));
    // p(a | <think>) starts near 1/8; the last five steps must average well above the first five
    expect(last).toBeGreaterThan(first + 0.3);
    expect(last).toBeGreaterThan(0.7);
    policy.dispose();
  });

  for (const lossType of ['grpo', 'bnpo', 'dr_grpo', 'dapo'] as const) {
    it(`uniform σ reproduces plain GRPO exactly (${lossType}, 2 micro-batches)`, async () => {
      const policy = new BigramPolicy(V, 4, new Rng(5));
      const cfg = config({ lossType, promptsPerStep: 2, gradientAccumulationSteps: 2, redistribution: 'none' });
      const plain = new GrpoTrainer(setup(policy), cfg);
      const batch = await plain.generate();
      expect(new Set(batch.traces.map((t) => t.completion.length)).size).toBeGreaterThan(1); // unequal lengths matter
      const redistributed = new GrpoTrainer(setup(policy, { redistribute: uniformHook }), { ...cfg, redistribution: 'rredcot' });
      const sigma = await uniformHook(batch.traces, { step: 0, rng: new Rng(1), advantages: batch.advantages });
      const uniformBatch: RolloutBatch = {
        ...batch,
        sigma,
        coefficients: batch.traces.map((t, i) => sigma[i].map((s) => batch.advantages[i] * s * t.completion.length)),
      };
      const a = plain.lossAndGradients(plain.microBatches(batch), null, null);
      const b = redistributed.lossAndGradients(redistributed.microBatches(uniformBatch), null, null);
      expect(b.loss).toBe(a.loss);
      for (const name of Object.keys(a.grads)) expect(Array.from(b.grads[name].dataSync())).toEqual(Array.from(a.grads[name].dataSync()));
      // and the gradient is not trivially zero
      const norm = Object.values(a.grads).reduce((s, g) => s + tf.sum(tf.abs(g)).dataSync()[0], 0);
      expect(norm).toBeGreaterThan(0);
      policy.dispose();
    });
  }

  it("referenceSft adds λ · NLL of the step prompts' references: it lowers their NLL when every group is degenerate, and λ = 0 reads nothing", async () => {
    // reward 0 for everything: every group is degenerate (A = 0), so only the SFT term moves the weights
    const zero: GrpoSetup['reward'] = () => ({ reward: 0, answer: null });
    const reference = [6, 7, 4, 5, 2]; // b c </think> a <eos>
    const nllOf = (policy: BigramPolicy) =>
      tf.tidy(() => {
        const rows = prompts.map((p) => [...p.tokens, ...reference]);
        const inputs = tf.tensor2d(
          rows.map((r) => r.slice(0, -1)),
          [rows.length, rows[0].length - 1],
          'int32',
        );
        const targets = tf.tensor2d(
          rows.map((r) => r.slice(1)),
          [rows.length, rows[0].length - 1],
          'int32',
        );
        const lp = policy.tokenLogprobs(inputs, targets).arraySync() as number[][];
        return -mean(lp.flatMap((r) => r.slice(2))); // the completion's targets (after <bos> x <think>)
      });
    const policy = new BigramPolicy(V, 4, new Rng(7));
    const asked: string[] = [];
    const referenceCompletion = (p: GrpoPrompt) => (asked.push(p.id), reference);
    const before = nllOf(policy);
    const trainer = new GrpoTrainer(
      setup(policy, { reward: zero, referenceCompletion }),
      config({ referenceSft: 1, optimizer: { lr: 0.05, warmupSteps: 0, weightDecay: 0 } }),
    );
    let last = NaN;
    for (let i = 0; i < 10; i++) {
      const m = await trainer.trainStep();
      expect(m.zeroStdGroups).toBe(1);
      last = m.referenceNll!;
    }
    expect(asked).toHaveLength(30); // 3 prompts per step, 10 steps
    expect(nllOf(policy)).toBeLessThan(before - 0.5);
    expect(last).toBeLessThan(before);
    // λ = 0: the hook is never asked and no referenceNll is reported; the weights do not move (A = 0 everywhere)
    const still = new BigramPolicy(V, 4, new Rng(7));
    asked.length = 0;
    const plain = new GrpoTrainer(
      setup(still, { reward: zero, referenceCompletion }),
      config({ referenceSft: 0, optimizer: { lr: 0.05, warmupSteps: 0, weightDecay: 0 } }),
    );
    const m = await plain.trainStep();
    expect(asked).toHaveLength(0);
    expect(m.referenceNll).toBeUndefined();
    expect(nllOf(still)).toBeCloseTo(before, 6);
    expect(() => new GrpoTrainer(setup(still, { reward: zero }), config({ referenceSft: 0.1 }))).toThrow(/referenceCompletion/);
    policy.dispose();
    still.dispose();
  });

  it('a non-uniform σ changes the gradient', async () => {
    const policy = new BigramPolicy(V, 4, new Rng(5));
    const cfg = config({ promptsPerStep: 2 });
    const trainer = new GrpoTrainer(setup(policy), cfg);
    const batch = await trainer.generate();
    const front: RolloutBatch = {
      ...batch,
      coefficients: batch.traces.map((t, i) => t.completion.map((_, k) => (k === 0 ? batch.advantages[i] * t.completion.length : 0))),
    };
    const a = trainer.lossAndGradients(trainer.microBatches(batch), null, null);
    const b = trainer.lossAndGradients(trainer.microBatches(front), null, null);
    const diff = Object.keys(a.grads).reduce((s, n) => s + tf.sum(tf.abs(tf.sub(a.grads[n], b.grads[n]))).dataSync()[0], 0);
    expect(diff).toBeGreaterThan(1e-4);
    policy.dispose();
  });

  it('resumes to an identical continuation (μ = 2, KL to a reference)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpo-resume-'));
    const file = path.join(dir, 'state.bin');
    const cfg = config({ steps: 6, numIterations: 2, beta: 0.05, importanceSampling: 'sequence', lossType: 'dapo' });
    const reference = new BigramPolicy(V, 8, new Rng(21));

    const straight = new BigramPolicy(V, 8, new Rng(21));
    const t1 = new GrpoTrainer(setup(straight, { reference }), cfg);
    const a: number[] = [];
    for (let i = 0; i < 4; i++) a.push((await t1.trainStep()).loss);

    const first = new BigramPolicy(V, 8, new Rng(21));
    const t2 = new GrpoTrainer(setup(first, { reference }), cfg);
    const b: number[] = [];
    for (let i = 0; i < 2; i++) b.push((await t2.trainStep()).loss);
    t2.save(file);
    first.dispose();
    const second = new BigramPolicy(V, 8, new Rng(999));
    const t3 = new GrpoTrainer(setup(second, { reference }), cfg);
    t3.restore(file);
    for (let i = 0; i < 2; i++) b.push((await t3.trainStep()).loss);

    expect(b).toEqual(a);
    expect(second.variables.map((v) => Array.from(v.dataSync()))).toEqual(straight.variables.map((v) => Array.from(v.dataSync())));
    [straight, second, reference].forEach((p) => p.dispose());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports the metrics it promises', async () => {
    const policy = new BigramPolicy(V, 4, new Rng(2));
    const m = await new GrpoTrainer(setup(policy, { reference: policy }), config({ beta: 0.1, epsilonHigh: 0.28 })).trainStep();
    expect(m.kl).toBeCloseTo(0, 6); // reference = policy before the update
    expect(m.sigmaEntropy).toBeGreaterThan(0);
    expect(m.completionLength).toBeGreaterThan(0);
    expect(m.zeroStdGroups).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(m.gradNorm)).toBe(true);
    policy.dispose();
  });

  it("logs Σσ_t per step: 1 under uniform σ, the hook's sum otherwise (signed σ breaks return equivalence)", async () => {
    const policy = new BigramPolicy(V, 4, new Rng(5));
    const plain = await new GrpoTrainer(setup(policy), config({ promptsPerStep: 3 })).trainStep();
    if (!Number.isNaN(plain.sigmaSumMean)) {
      expect(plain.sigmaSumMean).toBeCloseTo(1, 12);
      expect(plain.sigmaSumMin).toBeCloseTo(1, 12);
    }
    // a hook whose rows sum to 1/2 (as signed L1 σ can): the metric shows it
    const half: GrpoSetup['redistribute'] = async (traces) => traces.map((t) => t.completion.map(() => 0.5 / t.completion.length));
    const m = await new GrpoTrainer(setup(policy, { redistribute: half }), config({ redistribution: 'rredcot', groupSize: 8 })).trainStep();
    expect(m.zeroStdGroups).toBeLessThan(1);
    expect(m.sigmaSumMean).toBeCloseTo(0.5, 12);
    expect(m.sigmaSumMax).toBeCloseTo(0.5, 12);
    policy.dispose();
  });

  it('clipping acts only with μ ≥ 2: with μ = 1 the ratio is exactly 1 (token-level REINFORCE with a group baseline)', async () => {
    const clipped = async (numIterations: number) => {
      const policy = new BigramPolicy(V, 4, new Rng(7));
      const trainer = new GrpoTrainer(setup(policy), config({ numIterations, epsilon: 0.05, optimizer: { lr: 0.5, warmupSteps: 0 } }));
      let total = 0;
      for (let i = 0; i < 3; i++) total += (await trainer.trainStep()).clippedFraction;
      policy.dispose();
      return total;
    };
    expect(await clipped(1)).toBe(0);
    expect(await clipped(2)).toBeGreaterThan(0);
  });

  it('VeriGate: a degenerate group gets process advantages from its step scores, the others keep A_i', async () => {
    const policy = new BigramPolicy(V, 4, new Rng(5));
    // one step per token, scored by the token id: deterministic and different across traces
    const calls: boolean[][] = [];
    const seenRewards: (readonly number[])[] = [];
    const stepScores: GrpoSetup['stepScores'] = async (traces, { gated, rewards }) => {
      calls.push(gated);
      seenRewards.push(rewards);
      return traces.map((t, i) => (gated[i] ? { ends: t.completion.map((_, k) => k + 1), scores: t.completion.map((x) => x / 10) } : null));
    };
    // the first seed whose first batch holds both a degenerate and a non-degenerate group (deterministic)
    const degenerateGroups = (b: RolloutBatch) => [0, 2, 4].map((g) => ({ g, degenerate: b.rewards[g] === b.rewards[g + 1] }));
    let batch: RolloutBatch | null = null;
    for (let seed = 1; seed <= 50 && !batch; seed++) {
      calls.length = 0;
      seenRewards.length = 0;
      const trainer = new GrpoTrainer(
        setup(policy, { stepScores }),
        config({ promptsPerStep: 3, groupSize: 2, processAdvantage: 'verigate', verigateScale: 'none', seed }),
      );
      const b = await trainer.generate();
      if (new Set(degenerateGroups(b).map((x) => x.degenerate)).size === 2) batch = b;
    }
    if (!batch) throw new Error('no seed in 1..50 gave a gated and an ungated group');
    const groups = degenerateGroups(batch);
    expect(groups.some((x) => x.degenerate)).toBe(true);
    expect(groups.some((x) => !x.degenerate)).toBe(true);
    expect(calls[0]).toEqual(batch.rewards.map((_, i) => groups[Math.floor(i / 2)].degenerate));
    expect(seenRewards[0]).toEqual(batch.rewards); // the hook sees the verifier rewards (the oracle PRM scores the answer step by them)
    for (const { g, degenerate } of groups) {
      for (const i of [g, g + 1]) {
        const t = batch.traces[i];
        if (!degenerate) {
          expect(batch.coefficients[i]).toEqual(t.completion.map(() => batch.advantages[i]));
          continue;
        }
        expect(batch.advantages[i]).toBe(0);
        // by hand (the default order, normalize then cumulate): p = x / 10 pooled over the group's two traces,
        // p̃ = (p − mean) / (sample SD + 1e-4), and token k's advantage is Σ_{j ≥ k} p̃_j
        const p = (j: number) => batch.traces[j].completion.map((x) => x / 10);
        const pool = [...p(g), ...p(g + 1)];
        const m = pool.reduce((a, b) => a + b, 0) / pool.length;
        const sd = Math.sqrt(pool.reduce((a, x) => a + (x - m) ** 2, 0) / (pool.length - 1));
        const tilde = p(i).map((x) => (sd > 0 ? (x - m) / (sd + 1e-4) : 0));
        tilde.forEach((_, k) =>
          expect(batch.coefficients[i][k]).toBeCloseTo(
            tilde.slice(k).reduce((a, b) => a + b, 0),
            10,
          ),
        );
      }
    }
    const gatedRows = groups.filter((x) => x.degenerate).flatMap(({ g }) => [batch.coefficients[g], batch.coefficients[g + 1]]);
    expect(gatedRows.flat().some((c) => Math.abs(c) > 0.1)).toBe(true); // the process advantages are not trivially 0
    expect(() => new GrpoTrainer(setup(policy), config({ processAdvantage: 'verigate' }))).toThrow(/step-score hook/);
    expect(config({ processAdvantage: 'verigate' }).verigateScale).toBe('unit'); // the trainer's default scales gated groups (verigate.test.ts)
    policy.dispose();
  });

  it('checks config cross-fields and hook presence', () => {
    expect(() => parseGrpoConfig({ promptsPerStep: 3, gradientAccumulationSteps: 2 }, 'c.json')).toThrow(
      /promptsPerStep \(3\).*gradientAccumulationSteps \(2\)/,
    );
    expect(() => parseGrpoConfig({ epsilon: 0.2, epsilonHigh: 0.1 }, 'c.json')).toThrow(/epsilonHigh \(0.1\).*epsilon \(0.2\)/);
    expect(() => parseGrpoConfig({ lossType: 'ppo' }, 'c.json')).toThrow(/lossType/);
    expect(() => parseGrpoConfig({ importanceSampling: 'sequence', redistribution: 'rredcot' }, 'c.json')).toThrow(
      /c\.json[\s\S]*importanceSampling 'sequence' with redistribution 'rredcot'.*use 'sequenceToken'/,
    );
    expect(parseGrpoConfig({ importanceSampling: 'sequenceToken', redistribution: 'rredcot' }, 'c.json').importanceSampling).toBe(
      'sequenceToken',
    );
    const policy = new BigramPolicy(V, 4, new Rng(2));
    expect(() => new GrpoTrainer(setup(policy), config({ redistribution: 'mc' }))).toThrow(/hook/);
    expect(() => new GrpoTrainer(setup(policy), config({ beta: 0.1 }))).toThrow(/reference/);
    policy.dispose();
  });
});

describe('runGrpo', () => {
  it('logs every step to the sink and writes the state at the end', async () => {
    const { runGrpo } = await import('./grpo-loop');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpo-loop-'));
    const policy = new BigramPolicy(V, 4, new Rng(3));
    const trainer = new GrpoTrainer(setup(policy), config({ steps: 3, checkpointEvery: 2 }));
    const logged: { values: Record<string, number>; step: number }[] = [];
    const history = await runGrpo(trainer, {
      statePath: path.join(dir, 'state.bin'),
      sink: { logMetrics: (values, step) => logged.push({ values, step }) },
    });
    expect(history.map((m) => m.step)).toEqual([1, 2, 3]);
    expect(logged.map((l) => l.step)).toEqual([1, 2, 3]);
    expect(Object.keys(logged[0].values)).toEqual(
      expect.arrayContaining(['grpo.rewardMean', 'grpo.clippedFraction', 'grpo.sigmaEntropy', 'grpo.gradNorm', 'grpo.stepMs']),
    );
    const resumed = new GrpoTrainer(setup(new BigramPolicy(V, 4, new Rng(4))), config({ steps: 3 }));
    resumed.restore(path.join(dir, 'state.bin'));
    expect(resumed.step).toBe(3);
    policy.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
