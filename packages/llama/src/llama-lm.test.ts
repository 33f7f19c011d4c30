import * as path from 'node:path';
import { Rng, UserError } from '@rred/core';
import { initEngine } from '@rred/engine';
import { rredcot } from '@rred/estimators';
import { buildTrace, EMBEDDED_CHECKPOINT, TransformerLM, type SampleOptions, type SuffixRequest, type Trace } from '@rred/lm';
import { segment, segmentationConfig } from '@rred/segmentation';
import { promptTokens, readJsonl, referenceTokens, verify, type TaskRecord } from '@rred/tasks';
import { describeLlama, exportedEmbedded } from '../testing';
import { LlamaLM } from './llama-lm';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Spearman's rank correlation (average ranks for ties). */
function spearman(a: number[], b: number[]): number {
  const ranks = (x: number[]) => {
    const order = x.map((v, i) => [v, i] as const).sort((p, q) => p[0] - q[0]);
    const r = new Array<number>(x.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const [ra, rb] = [ranks(a), ranks(b)];
  const mean = (v: number[]) => v.reduce((s, y) => s + y, 0) / v.length;
  const [ma, mb] = [mean(ra), mean(rb)];
  let num = 0;
  let da = 0;
  let db = 0;
  ra.forEach((x, i) => {
    num += (x - ma) * (rb[i] - mb);
    da += (x - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  });
  return da === 0 || db === 0 ? (da === db ? 1 : 0) : num / Math.sqrt(da * db);
}

/**
 * Two-sample chi-square test of homogeneity over token counts; categories whose pooled count is below
 * 10 are merged into one. Returns the statistic, its degrees of freedom and the 0.999 quantile
 * (Wilson–Hilferty: df·(1 − 2/(9df) + z·√(2/(9df)))³, z = 3.090).
 */
function chiSquare(a: Map<number, number>, b: Map<number, number>, n: number) {
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  const cells: [number, number][] = [];
  let rest: [number, number] = [0, 0];
  for (const k of keys) {
    const c: [number, number] = [a.get(k) ?? 0, b.get(k) ?? 0];
    if (c[0] + c[1] < 10) rest = [rest[0] + c[0], rest[1] + c[1]];
    else cells.push(c);
  }
  if (rest[0] + rest[1] > 0) cells.push(rest);
  let stat = 0;
  for (const [x, y] of cells) {
    const e = (x + y) / 2; // equal sample sizes n
    stat += (x - e) ** 2 / e + (y - e) ** 2 / e;
  }
  const df = cells.length - 1;
  const q = df * (1 - 2 / (9 * df) + 3.09 * Math.sqrt(2 / (9 * df))) ** 3;
  return { stat, df, critical: q, n };
}

describeLlama('LlamaLM on the exported embedded checkpoint (llama.cpp, 1 thread, F32 KV cache)', () => {
  let local: TransformerLM;
  let llama: LlamaLM;
  let records: TaskRecord[];
  let traces: Trace[];
  beforeAll(async () => {
    await initEngine({ quiet: true });
    local = TransformerLM.fromCheckpoint(path.join(ROOT, EMBEDDED_CHECKPOINT));
    llama = await LlamaLM.load({ modelPath: await exportedEmbedded(), threads: 1 });
    records = readJsonl(path.join(ROOT, 'packages/tasks/data/eval-medium.jsonl')).slice(0, 20);
    const tok = local.tokenizer;
    const prompts = records.map((r) => promptTokens(tok, r.problem));
    const options: SampleOptions = { temperature: 1, topP: 1, maxNewTokens: 120, stopToken: tok.eos };
    const { results } = await local.sample(prompts, options, new Rng(7));
    traces = results.map((sample, i) => {
      const v = verify(tok.decode(sample.tokens), records[i].answer, !sample.truncated);
      return buildTrace(tok, { problemId: records[i].id, prompt: prompts[i], sample, answer: v.answer, reward: v.reward });
    });
  });
  afterAll(async () => {
    await llama?.dispose();
    local?.dispose();
  });

  it('reads the model as the checkpoint describes it', () => {
    expect(llama.vocabSize).toBe(local.vocabSize);
    expect(llama.maxLength).toBe(160);
    expect(llama.info.architecture).toBe('gpt2');
    expect(llama.info.metadata['rred.tokenizer']).toBe(JSON.stringify(local.tokenizer.toJSON()));
  });

  it('teacher-forced log-probs of 20 sampled traces match in-process scoring (worst < 1e-2, mean < 1e-3: the FP16 GELU table)', async () => {
    let worst = 0;
    let sum = 0;
    let count = 0;
    for (const t of traces) {
      const jobs = [{ sequence: [...t.prompt, ...t.completion], requests: [{ exitAt: t.prompt.length, suffix: t.completion }] }];
      const [a] = await local.scoreBatch(jobs);
      const [b] = await llama.scoreBatch(jobs);
      b.logprobs[0].forEach((lp, k) => {
        const d = Math.abs(lp - a.logprobs[0][k]);
        worst = Math.max(worst, d);
        sum += d;
        count++;
      });
    }
    process.stderr.write(
      `llama.cpp vs in-process log-probs over ${count} tokens of 20 traces: worst ${worst.toExponential(2)}, mean ${(sum / count).toExponential(2)}\n`,
    );
    expect(count).toBeGreaterThan(20 * 20);
    expect(worst).toBeLessThan(1e-2);
    expect(sum / count).toBeLessThan(1e-3);
  });

  it('scores every exit point of a trace after one pass over it: tokens evaluated = T + Σ|suffix|, counted', async () => {
    const t = traces.find((x) => x.thinkEnd > 20 && x.thinkEnd < x.completion.length)!;
    const tok = local.tokenizer;
    const sequence = [...t.prompt, ...t.completion];
    const suffix = [tok.endThink, ...tok.encode('7'), tok.eos];
    const requests: SuffixRequest[] = [];
    for (let k = t.prompt.length; k <= t.prompt.length + t.thinkEnd; k += 5) requests.push({ exitAt: k, suffix });
    requests.push({ exitAt: 3, suffix: [] });
    const before = llama.tokensEvaluated;
    const b = await llama.scoreAfterPrefixes(sequence, requests);
    const a = await local.scoreAfterPrefixes(sequence, requests);
    const suffixTokens = requests.reduce((n, r) => n + r.suffix.length, 0);
    expect(b.cost).toEqual({ tokensForwarded: sequence.length + suffixTokens, tokensGenerated: 0, forwardPasses: 1 + requests.length - 1 });
    expect(llama.tokensEvaluated - before).toBe(sequence.length + suffixTokens);
    expect(b.cost.tokensForwarded).toBe(a.cost.tokensForwarded);
    const diffs = b.logprobs.flatMap((row, i) => row.map((x, j) => Math.abs(x - a.logprobs[i][j])));
    expect(b.logprobs[requests.length - 1]).toEqual([]);
    expect(Math.max(...diffs)).toBeLessThan(1e-2);
  });

  it('seeded sampling draws the first token from the same distribution as in-process (chi-square, 2,000 draws each)', async () => {
    const prompt = traces[0].prompt;
    const n = 2000;
    const options: SampleOptions = { temperature: 1, topP: 1, maxNewTokens: 1, stopToken: local.tokenizer.eos };
    const a = await local.sample(new Array(n).fill(prompt), options, new Rng(101));
    const b = await llama.sample(new Array(n).fill(prompt), options, new Rng(202));
    const counts = (rows: { tokens: number[] }[]) => {
      const m = new Map<number, number>();
      for (const r of rows) m.set(r.tokens[0], (m.get(r.tokens[0]) ?? 0) + 1);
      return m;
    };
    const test = chiSquare(counts(a.results), counts(b.results), n);
    process.stderr.write(`first-token chi-square: ${test.stat.toFixed(2)} on ${test.df} df (0.999 quantile ${test.critical.toFixed(2)})\n`);
    expect(test.df).toBeGreaterThanOrEqual(2);
    expect(test.stat).toBeLessThan(test.critical);
    // 2,000 rows of one prompt: at most one prefill of it (less what the cache already held of it), nothing more
    expect(b.cost.tokensForwarded).toBeLessThanOrEqual(prompt.length);
    expect(b.cost.forwardPasses).toBe(1);
    // the same seed gives the same draws, from the prompt's kept distribution (nothing evaluated)
    const again = await llama.sample(new Array(50).fill(prompt), options, new Rng(202));
    expect(again.results.map((r) => r.tokens)).toEqual(b.results.slice(0, 50).map((r) => r.tokens));
    expect(again.cost).toEqual({ tokensForwarded: 0, tokensGenerated: 50, forwardPasses: 0 });
  });

  it('samples whole rows whose log-probs and entropies are those llama.cpp scores, at cost prompt + Σ(generated − 1)', async () => {
    const tok = local.tokenizer;
    const prompts = traces.slice(0, 4).map((t) => t.prompt);
    const options: SampleOptions = { temperature: 0.8, topP: 0.95, maxNewTokens: 60, stopToken: tok.eos };
    const fresh = await LlamaLM.load({ modelPath: await exportedEmbedded(), threads: 1 }); // an empty cache
    const { results, cost } = await fresh.sample(prompts, options, new Rng(5));
    await fresh.dispose();
    // each prompt is evaluated but for the prefix it shares with the previous row's sequence (kept in the cache)
    let expected = 0;
    let held: number[] = [];
    results.forEach((r, i) => {
      let common = 0;
      while (common < prompts[i].length - 1 && held[common] === prompts[i][common]) common++;
      expected += prompts[i].length - common + r.tokens.length - 1;
      held = [...prompts[i], ...r.tokens.slice(0, -1)];
    });
    expect(cost.tokensForwarded).toBe(expected);
    expect(expected).toBeLessThan(prompts.reduce((n, p) => n + p.length, 0) + results.reduce((n, r) => n + r.tokens.length - 1, 0));
    for (const [i, r] of results.entries()) {
      expect(r.tokens.length).toBeGreaterThan(0);
      expect(r.truncated).toBe(r.tokens[r.tokens.length - 1] !== tok.eos);
      const [scored] = await local.scoreBatch([
        { sequence: [...prompts[i], ...r.tokens], requests: [{ exitAt: prompts[i].length, suffix: r.tokens }] },
      ]);
      scored.logprobs[0].forEach((lp, k) => expect(Math.abs(lp - r.logprobs[k])).toBeLessThan(1e-2));
      expect(r.entropies.every((h) => Number.isFinite(h) && h >= 0)).toBe(true);
    }
  });

  it('RREDCoT credits of 8 traces: same segment ranking (Spearman ≥ 0.95) and within 0.05 nats per segment', async () => {
    const tok = local.tokenizer;
    const config = segmentationConfig({ strategy: 'keyword' });
    const tokenText = (id: number) => tok.tokenText(id);
    const estimator = { terms: 'immediatePlusValue', valueSuffix: 'full', space: 'log' } as const;
    let compared = 0;
    let worst = 0;
    let lowest = 1;
    for (const [i, t] of traces.entries()) {
      if (compared === 8) break;
      const segments = segment(t, config, tokenText);
      if (segments.length < 3) continue;
      const inputs = {
        tokens: { endThink: tok.endThink, eos: tok.eos, newline: tok.encode('\n')[0] },
        references: { dataset: referenceTokens(records[i], tok) },
      };
      const a = await rredcot(local, t, segments, inputs, estimator);
      const b = await rredcot(llama, t, segments, inputs, estimator);
      expect(b.credits.every(Number.isFinite)).toBe(true);
      const rho = spearman(a.credits, b.credits);
      lowest = Math.min(lowest, rho);
      worst = Math.max(worst, ...a.credits.map((c, k) => Math.abs(c - b.credits[k])));
      expect(rho).toBeGreaterThanOrEqual(0.95);
      expect(b.cost.tokensForwarded).toBe(a.cost.tokensForwarded);
      compared++;
    }
    process.stderr.write(
      `RREDCoT credits of ${compared} traces: lowest Spearman ${lowest.toFixed(4)}, worst |Δ credit| ${worst.toExponential(2)} nats\n`,
    );
    expect(compared).toBe(8);
    expect(worst).toBeLessThan(0.05);
  });

  it('refuses gradient attribution and bad requests with one-line errors', async () => {
    await expect(llama.embeddingGradientNorms()).rejects.toThrow(
      /^gradient attribution needs gradients: the llama.cpp model .* gives log-probs only/,
    );
    await expect(llama.scoreAfterPrefixes([1, 5, 6], [{ exitAt: 4, suffix: [5] }])).rejects.toThrow(
      new UserError('score: job 0 request 0 has exitAt 4, outside 1..3'),
    );
    await expect(llama.scoreAfterPrefixes([1, 99], [{ exitAt: 1, suffix: [5] }])).rejects.toThrow(
      /token id 99 is outside the vocabulary 0\.\.36/,
    );
    await expect(llama.scoreAfterPrefixes(new Array(161).fill(5), [])).rejects.toThrow(/161 tokens exceed the llama.cpp context of 160/);
    await expect(LlamaLM.load({ modelPath: '/nonexistent.gguf' })).rejects.toThrow(
      'llama config.modelPath: /nonexistent.gguf: file not found',
    );
    await expect(LlamaLM.load({ modelPath: 'x', threads: 0 })).rejects.toThrow(/threads/);
  });
});
