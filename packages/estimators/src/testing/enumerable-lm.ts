/**
 * A tabular language model small enough to enumerate: a handful of tokens, and a next-token
 * distribution that is a fixed function of the whole context (softmax of hash-derived logits). It
 * implements `LanguageModel` exactly — scores are products of its table probabilities, samples are
 * drawn with the passed Rng — so every estimator can be checked against quantities computed by
 * enumerating continuations. A test double, exported so cross-package tests can use it too.
 */
import type { Rng } from '@rred/core';
import type { ComputeCost, LanguageModel, SampleOptions, SampleResult, ScoreJob, ScoreResult, SuffixRequest } from '@rred/lm';
import type { SpecialTokens } from '../types';

interface EnumerableLMOptions {
  vocabSize: number;
  tokens: SpecialTokens;
  /** Seeds the hash table: a different seed is a different model. */
  seed: number;
  /** Spread of the hash logits (0 gives uniform next-token distributions). */
  scale: number;
  /** Added to each token's logit everywhere (length vocabSize); shapes how often `</think>` / `<eos>` appear. */
  bias?: number[];
  /** Added to `<eos>`'s logit once `</think>` is in the context, so answers end. */
  eosBiasAfterThink?: number;
  maxLength?: number;
}

export class EnumerableLM implements LanguageModel {
  readonly vocabSize: number;
  readonly maxLength: number;
  /** Calls made, so tests can check batching (one shared-prefix call per trace). */
  readonly calls = { score: 0, batch: 0, sample: 0, gradient: 0 };

  constructor(private readonly opts: EnumerableLMOptions) {
    this.vocabSize = opts.vocabSize;
    this.maxLength = opts.maxLength ?? 64;
  }

  /** log p(· | context) at temperature 1, length vocabSize; every entry finite. */
  nextLogProbs(context: readonly number[]): number[] {
    const { vocabSize, scale, tokens } = this.opts;
    let h = (0x811c9dc5 ^ this.opts.seed) >>> 0;
    for (const t of context) h = Math.imul(h ^ (t + 1), 0x01000193) >>> 0;
    const closed = context.includes(tokens.endThink);
    const logits = new Array<number>(vocabSize);
    for (let v = 0; v < vocabSize; v++) {
      const u = mix32(h ^ Math.imul(v + 1, 0x9e3779b9)) / 4294967296;
      logits[v] = scale * (u - 0.5) + (this.opts.bias?.[v] ?? 0) + (closed && v === tokens.eos ? (this.opts.eosBiasAfterThink ?? 0) : 0);
    }
    const max = Math.max(...logits);
    const lse = max + Math.log(logits.reduce((s, x) => s + Math.exp(x - max), 0));
    return logits.map((x) => x - lse);
  }

  /** log p(suffix | prefix) by multiplying table probabilities. */
  sequenceLogProb(prefix: readonly number[], suffix: readonly number[]): number {
    const ctx = prefix.slice();
    let lp = 0;
    for (const t of suffix) {
      lp += this.nextLogProbs(ctx)[t];
      ctx.push(t);
    }
    return lp;
  }

  async scoreAfterPrefixes(sequence: number[], requests: SuffixRequest[]): Promise<ScoreResult> {
    this.calls.score++;
    return this.score(sequence, requests);
  }

  /** One call for many sequences; counted in `calls.batch`, not `calls.score`. */
  async scoreBatch(jobs: ScoreJob[]): Promise<ScoreResult[]> {
    this.calls.batch++;
    return jobs.map(({ sequence, requests }) => this.score(sequence, requests));
  }

  private score(sequence: number[], requests: SuffixRequest[]): ScoreResult {
    let suffixTokens = 0;
    const logprobs = requests.map((req, i) => {
      if (!Number.isInteger(req.exitAt) || req.exitAt < 1 || req.exitAt > sequence.length) {
        throw new RangeError(`EnumerableLM: request ${i} exitAt ${req.exitAt} outside [1, ${sequence.length}]`);
      }
      if (req.exitAt + req.suffix.length > this.maxLength) throw new RangeError(`EnumerableLM: request ${i} exceeds maxLength`);
      suffixTokens += req.suffix.length;
      const ctx = sequence.slice(0, req.exitAt);
      return req.suffix.map((t) => {
        const lp = this.nextLogProbs(ctx)[t];
        ctx.push(t);
        return lp;
      });
    });
    return { logprobs, cost: { tokensForwarded: sequence.length + suffixTokens, tokensGenerated: 0, forwardPasses: 1 } };
  }

  async sample(prompts: number[][], options: SampleOptions, rng: Rng): Promise<{ results: SampleResult[]; cost: ComputeCost }> {
    this.calls.sample++;
    let generated = 0;
    let forwarded = 0;
    let steps = 0;
    const results = prompts.map((prompt) => {
      const ctx = prompt.slice();
      const out: SampleResult = { tokens: [], logprobs: [], entropies: [], truncated: true };
      for (let i = 0; i < options.maxNewTokens; i++) {
        const lp = this.nextLogProbs(ctx);
        const tok = rng.categorical(samplingWeights(lp, options.temperature, options.topP));
        out.tokens.push(tok);
        out.logprobs.push(lp[tok]);
        out.entropies.push(-lp.reduce((s, x) => s + Math.exp(x) * x, 0));
        ctx.push(tok);
        if (tok === options.stopToken) {
          out.truncated = false;
          break;
        }
      }
      generated += out.tokens.length;
      forwarded += Math.max(0, out.tokens.length - 1); // every sampled token but the last is fed back
      steps = Math.max(steps, out.tokens.length);
      return out;
    });
    // as the batched KV-cache sampler counts: each distinct prompt prefilled once, then one position per
    // live row per decoding step; one prefill pass plus one pass per step after the first
    const distinct = new Map(prompts.map((p) => [p.join(','), p.length]));
    for (const length of distinct.values()) forwarded += length;
    return { results, cost: { tokensForwarded: forwarded, tokensGenerated: generated, forwardPasses: steps } };
  }

  /**
   * An analytic stand-in for ‖∂ Σ_{t' ≥ targetFrom} log p / ∂ e_t‖₁: each later target position t'
   * contributes 0.7^(t'-t-1), scaled by a per-token factor. Only its shape matters to the tests.
   */
  async embeddingGradientNorms(sequence: number[], targetFrom: number): Promise<{ norms: number[]; cost: ComputeCost }> {
    this.calls.gradient++;
    const norms = sequence.map((tok, t) => {
      let s = 0;
      for (let tp = Math.max(targetFrom, t + 1); tp < sequence.length; tp++) s += Math.pow(0.7, tp - t - 1);
      return s * (0.5 + mix32(tok + 17) / 4294967296);
    });
    return { norms, cost: { tokensForwarded: 2 * sequence.length, tokensGenerated: 0, forwardPasses: 1 } };
  }
}

/** Unnormalized sampling weights at a temperature, restricted to the top-p nucleus. */
function samplingWeights(logprobs: number[], temperature: number, topP: number): number[] {
  const z = logprobs.map((x) => x / temperature);
  const max = Math.max(...z);
  const p = z.map((x) => Math.exp(x - max));
  const total = p.reduce((a, b) => a + b, 0);
  if (topP >= 1) return p;
  const order = p.map((_, i) => i).sort((a, b) => p[b] - p[a]);
  const keep = new Array<number>(p.length).fill(0);
  let mass = 0;
  for (const i of order) {
    keep[i] = p[i];
    mass += p[i] / total;
    if (mass >= topP) break;
  }
  return keep;
}

function mix32(x: number): number {
  let z = x >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
