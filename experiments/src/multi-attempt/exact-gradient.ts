/**
 * The exact check of the multi-attempt attempt weights (packages/training/README.md, "Several attempts"):
 * on the estimators' enumerable toy LM in a two-attempt format (attempt, a verifier-written feedback token,
 * attempt), ∇ P(success by K) by a value recursion over the enumerated tree, and each arm's expected gradient
 * and variance by summing over every rollout. The policy is the toy LM's next-token table with one free logit
 * offset ℓ_{c,v} per (context c, sampled token v), evaluated at ℓ = 0; gradients are vectors over those
 * coordinates.
 */
import { EnumerableLM } from '@rred/estimators/testing';
import { attemptReturns, attemptWeights, baselinePool, type MultiAttemptArm } from '@rred/training';

/** Tokens of the toy: 0, 1 content; 2 ends an attempt; 3 is the verifier's feedback token, which the policy never samples. */
const CONTENT = [0, 1] as const;
const END = 2;
const FEEDBACK = 3;
/** The sampled tokens, in the order of a context's coordinates. */
const SAMPLED = [...CONTENT, END];
const V = SAMPLED.length;

interface ToyOptions {
  /** Attempts K (the exact check uses 2). */
  attempts: number;
  /** An attempt ends at token 2 or after this many tokens (then it is wrong: truncated). */
  maxAttemptTokens: number;
  /** Seed of the toy LM's hash table: a different seed is a different policy. */
  seed: number;
}

const DEFAULT_TOY: ToyOptions = { attempts: 2, maxAttemptTokens: 3, seed: 5 };
const PROMPT = [0, 1, FEEDBACK];
/** Correct attempts: content [1] or [0, 1], then the end token. */
const ACCEPTED = ['1', '0,1'];

/** One sampled token with the context it was drawn in: a coordinate block and the policy's probabilities there. */
interface Step {
  ctx: number;
  token: number;
  probs: number[];
}

interface ToyRollout {
  p: number;
  /** Steps of each attempt k ≤ τ (the feedback tokens are not steps: the policy did not draw them). */
  attempts: Step[][];
  /** r_1..r_τ. */
  rewards: number[];
  /** V_k(h_{k−1}) = P(S = 1 | h_{k−1}) at the start of each attempt (a critic's ideal baseline). */
  values: number[];
}

export class AttemptToy {
  private readonly lm: EnumerableLM;
  private readonly index = new Map<string, number>();

  constructor(readonly options: ToyOptions = DEFAULT_TOY) {
    this.lm = new EnumerableLM({
      vocabSize: 4,
      tokens: { endThink: FEEDBACK, eos: END },
      seed: options.seed,
      scale: 3,
      bias: [0, 0.4, 0.6, 0],
      maxLength: 64,
    });
  }

  /** Number of coordinates: V per context reached (complete after `enumerate()` or `exactGradient()`). */
  get dimension(): number {
    return this.index.size * V;
  }

  /** π(· | ctx) over the sampled tokens with offsets ℓ (a map from coordinate to offset; none at ℓ = 0). */
  policy(ctx: readonly number[], offsets?: ReadonlyMap<number, number>): { block: number; probs: number[] } {
    const block = this.block(ctx);
    const lp = this.lm.nextLogProbs(ctx);
    const logits = SAMPLED.map((v, j) => lp[v] + (offsets?.get(block * V + j) ?? 0));
    const max = Math.max(...logits);
    const e = logits.map((x) => Math.exp(x - max));
    const z = e.reduce((a, b) => a + b, 0);
    return { block, probs: e.map((x) => x / z) };
  }

  /** Every rollout with its probability (they sum to 1). */
  enumerate(): ToyRollout[] {
    const out: ToyRollout[] = [];
    const walk = (ctx: number[], k: number, done: Step[][], rewards: number[], values: number[], p: number): void => {
      const v = this.value(ctx, k, []);
      this.attemptsFrom(ctx, [], [], p, (tokens, steps, q) => {
        const r = this.reward(tokens);
        const attempts = [...done, steps];
        if (r === 1 || k === this.options.attempts) out.push({ p: q, attempts, rewards: [...rewards, r], values: [...values, v] });
        else walk([...ctx, ...tokens, FEEDBACK], k + 1, attempts, [...rewards, r], [...values, v], q);
      });
    };
    walk(PROMPT.slice(), 1, [], [], [], 1);
    return out;
  }

  /**
   * ∇J at ℓ = 0 by the value recursion ∂J/∂ℓ_{c,v} = P(reach c) π(v | c) (V(c v) − V(c)): no rollout sums and
   * no score functions, so it is independent of the arms' expectations.
   */
  exactGradient(): Float64Array {
    const entries: [number, number][] = [];
    const node = (ctx: number[], k: number, attempt: number[], reach: number): number => {
      const { block, probs } = this.policy(ctx);
      const children = SAMPLED.map((tok, j) =>
        this.afterToken(
          ctx,
          k,
          attempt,
          tok,
          (c, kk, a) => node(c, kk, a, reach * probs[j]),
          (c, kk) => node(c, kk, [], reach * probs[j]),
        ),
      );
      const v = children.reduce((s, c, j) => s + probs[j] * c, 0);
      children.forEach((c, j) => entries.push([block * V + j, reach * probs[j] * (c - v)]));
      return v;
    };
    node(PROMPT.slice(), 1, [], 1);
    const g = new Float64Array(this.dimension);
    for (const [i, x] of entries) g[i] += x;
    return g;
  }

  /** J(ℓ) = P(S = 1) under offsets ℓ, by the recursion (for finite differences). */
  objective(offsets?: ReadonlyMap<number, number>): number {
    return this.value(PROMPT.slice(), 1, [], offsets);
  }

  private value(ctx: number[], k: number, attempt: number[], offsets?: ReadonlyMap<number, number>): number {
    const { probs } = this.policy(ctx, offsets);
    return SAMPLED.reduce(
      (s, tok, j) =>
        s +
        probs[j] *
          this.afterToken(
            ctx,
            k,
            attempt,
            tok,
            (c, kk, a) => this.value(c, kk, a, offsets),
            (c, kk) => this.value(c, kk, [], offsets),
          ),
      0,
    );
  }

  /**
   * What follows drawing `tok` in attempt k: the attempt goes on (`within`), it ends correct (1), it ends
   * wrong at the last attempt (0), or the verifier appends its feedback token and attempt k + 1 starts (`next`).
   */
  private afterToken(
    ctx: number[],
    k: number,
    attempt: number[],
    tok: number,
    within: (ctx: number[], k: number, attempt: number[]) => number,
    next: (ctx: number[], k: number) => number,
  ): number {
    const a = [...attempt, tok];
    if (tok !== END && a.length < this.options.maxAttemptTokens) return within([...ctx, tok], k, a);
    if (this.reward(a) === 1) return 1;
    if (k === this.options.attempts) return 0;
    return next([...ctx, tok, FEEDBACK], k + 1);
  }

  private attemptsFrom(
    ctx: number[],
    tokens: number[],
    steps: Step[],
    p: number,
    emit: (tokens: number[], steps: Step[], p: number) => void,
  ): void {
    const { block, probs } = this.policy(ctx);
    SAMPLED.forEach((tok, j) => {
      const t = [...tokens, tok];
      const s = [...steps, { ctx: block, token: j, probs }];
      if (tok === END || t.length === this.options.maxAttemptTokens) emit(t, s, p * probs[j]);
      else this.attemptsFrom([...ctx, tok], t, s, p * probs[j], emit);
    });
  }

  /** ζ of one attempt: 1 iff it ended with the end token and its content is accepted. */
  private reward(attempt: readonly number[]): number {
    if (attempt[attempt.length - 1] !== END) return 0;
    return ACCEPTED.includes(attempt.slice(0, -1).join(',')) ? 1 : 0;
  }

  private block(ctx: readonly number[]): number {
    const key = ctx.join(',');
    let b = this.index.get(key);
    if (b === undefined) {
      b = this.index.size;
      this.index.set(key, b);
    }
    return b;
  }
}

/** Baselines of an arm in the exact check: its population values, a critic's V_k(h_{k−1}), or none. */
type ToyBaseline = 'population' | 'critic' | 'none';

/** Adds w · ∇ log π(a_k | h_{k−1}) = w Σ_t (e_{a_t} − π(· | c_t)) into g. */
function addScore(g: Float64Array, steps: readonly Step[], w: number): void {
  for (const s of steps) {
    for (let j = 0; j < V; j++) g[s.ctx * V + j] += w * ((j === s.token ? 1 : 0) - s.probs[j]);
  }
}

/**
 * Population baselines of an arm (the G → ∞ limit of its group baselines): pool 'all' → E[return_1] for every
 * attempt; pool 'reached' → b_k = E[return_k | τ ≥ k] (Eq. M8 with the whole population as the group).
 */
function populationBaselines(arm: MultiAttemptArm, rollouts: readonly ToyRollout[], K: number): number[] {
  const b: number[] = [];
  for (let k = 0; k < K; k++) {
    let num = 0;
    let den = 0;
    for (const r of rollouts) {
      const ret = attemptReturns(arm, r.rewards);
      if (baselinePool(arm) === 'all') {
        num += r.p * ret[0];
        den += r.p;
      } else if (ret.length > k) {
        num += r.p * ret[k];
        den += r.p;
      }
    }
    b.push(den > 0 ? num / den : 0);
  }
  return b;
}

/** One rollout's estimate ĝ = Σ_{k ≤ τ} (return_k − b_k) ∇ log π(a_k | h_{k−1}) under an arm and a baseline choice. */
function rolloutEstimate(arm: MultiAttemptArm, r: ToyRollout, baseline: ToyBaseline, population: number[], dim: number): Float64Array {
  const g = new Float64Array(dim);
  const ret = attemptReturns(arm, r.rewards);
  r.attempts.forEach((steps, k) => {
    const b = baseline === 'none' ? 0 : baseline === 'critic' ? r.values[k] : population[k];
    addScore(g, steps, ret[k] - b);
  });
  return g;
}

interface ArmMoments {
  /** E[ĝ] over rollouts. */
  mean: Float64Array;
  /** Total variance of one rollout's estimate: E‖ĝ‖² − ‖E ĝ‖². */
  variance: number;
}

/** The exact mean and total variance of one rollout's estimate under an arm (every rollout enumerated). */
export function armMoments(toy: AttemptToy, rollouts: readonly ToyRollout[], arm: MultiAttemptArm, baseline: ToyBaseline): ArmMoments {
  const dim = toy.dimension;
  const population = populationBaselines(arm, rollouts, toy.options.attempts);
  const mean = new Float64Array(dim);
  let second = 0;
  for (const r of rollouts) {
    const g = rolloutEstimate(arm, r, baseline, population, dim);
    for (let i = 0; i < dim; i++) {
      mean[i] += r.p * g[i];
      second += r.p * g[i] * g[i];
    }
  }
  return { mean, variance: second - dot(mean, mean) };
}

/**
 * E of the group estimator (1/G) Σ_i Σ_k w_{i,k} ∇ log π(a_{i,k} | h) with the trainer's own weights
 * (`attemptWeights`, leave-one-out baselines, no scaling) for a group of G = 2, every pair of rollouts enumerated.
 */
export function pairMean(toy: AttemptToy, rollouts: readonly ToyRollout[], arm: MultiAttemptArm): Float64Array {
  const mean = new Float64Array(toy.dimension);
  rollouts.forEach((ri) => {
    // by symmetry both members contribute alike: E = Σ_i p_i Σ_k (Σ_j p_j w_{i,k}(i, j)) ∇ log π(a_{i,k})
    const wBar = ri.rewards.map(() => 0);
    for (const rj of rollouts) {
      const w = attemptWeights(arm, [ri.rewards, rj.rewards], 2)[0];
      w.forEach((x, k) => (wBar[k] += rj.p * x));
    }
    ri.attempts.forEach((steps, k) => addScore(mean, steps, ri.p * wBar[k]));
  });
  return mean;
}

export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function maxAbsDiff(a: Float64Array, b: Float64Array, scale = 1): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - scale * b[i]));
  return m;
}
