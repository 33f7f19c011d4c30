/**
 * The benchmark's verdicts: each method's within-trace ρ with ΔV_gold (per trace, over all traces)
 * compared, trace by trace, with what can beat it:
 * - the outcome-signed position baseline (2ζ − 1)·k, free;
 * - MC at matched tokens (equal-cost.ts: MC(n) interpolated in log tokens at the method's tokens/trace).
 * Each comparison is a paired bootstrap over traces of the mean per-trace difference (method − other),
 * with a two-sided bootstrap p; over one bed's methods (one family per comparison) Holm's step-down
 * corrects the p-values and sets each interval's level: the method with the i-th smallest p of m gets
 * the interval at level 1 − α/(m − i + 1), α = 1 − the configured level. Verdict: 'yes' when the adjusted
 * interval is above 0, 'worse' when below, 'undecided' when it straddles 0 or an earlier step (smaller p)
 * was undecided (Holm's step-down stops there).
 * The family is the methods on canonical references (every reference source); the stress arm's
 * rewritten-reference variants form their own family, each against the same variant on canonical references.
 */
import { holm, mean, pairedBootstrapDifference, percentileInterval, type Rng } from '@rred/core';
import { mcAtCost } from './equal-cost';
import { mcMethod } from './methods';
import { canonicalName, parseMethodName, type ReferenceSource, type Rewrite } from './names';

export const SIGNED_POSITION = 'signedPosition';

export type Verdict = 'yes' | 'worse' | 'undecided';

export interface Comparison {
  /** The other side: a method name, or 'mc' for MC at matched tokens. */
  against: string;
  /** MC at matched tokens: n at the method's cost (the nearest draw's n outside the measured range). */
  n: number | null;
  /** MC at matched tokens: whether the cost is inside the measured MC range ('below': the cheapest draw costs more than the method). */
  range: 'within' | 'below' | 'above' | null;
  /** Mean per-trace difference (method − other) and its Holm-adjusted percentile interval. */
  diff: number;
  lo: number;
  hi: number;
  /** Coverage of [lo, hi]: 1 − Holm's step level. */
  level: number;
  p: number;
  adjustedP: number;
  /** Bootstrap resamples behind p and [lo, hi] (familyResamples). */
  resamples: number;
  verdict: Verdict;
}

/** What a family of comparisons reads: per method its per-trace within ρ (over all traces) and its tokens per trace. */
export interface ScoredMethods {
  perTrace: Record<string, number[]>;
  tokens: Record<string, number>;
  mcSamples: readonly number[];
  resamples: number;
  level: number;
}

interface Pending {
  method: string;
  against: string;
  other: number[];
  n: number | null;
  range: Comparison['range'];
}

/**
 * Bootstrap resamples of a family of m comparisons: Holm's first step reads the α/(2m) tail of the
 * replicates, so the family gets at least 20·m/α resamples (≥ 10 replicates beyond that quantile, and a
 * p-value resolution of α/(20·m)), or the configured number if that is larger.
 */
export const familyResamples = (m: number, alpha: number, configured: number): number => Math.max(configured, Math.ceil((20 * m) / alpha));

/**
 * Paired bootstraps of a family, Holm over it; returns the comparisons by method. The verdict is Holm's
 * step-down read on the intervals: in the order of the p-values, a step is decided (yes / worse) when its
 * interval at its Holm level excludes 0 and every earlier step was decided; from the first that is not,
 * every later one is undecided.
 */
function holmFamily(pending: readonly Pending[], s: ScoredMethods, rng: Rng): Map<string, Comparison> {
  const alpha = 1 - s.level;
  const resamples = familyResamples(pending.length, alpha, s.resamples);
  const diffs = pending.map((c) =>
    pairedBootstrapDifference(s.perTrace[c.method], c.other, rng.fork(c.method), { resamples, level: s.level }),
  );
  const steps = holm(
    diffs.map((d) => d.p),
    alpha,
  );
  const intervals = diffs.map((d, i) => (d.replicates.length ? percentileInterval(d.replicates, 1 - steps[i].alpha) : [NaN, NaN]));
  const byRank = pending.map((_, i) => i).sort((a, b) => steps[a].rank - steps[b].rank);
  const decided = new Array<boolean>(pending.length).fill(false);
  for (const i of byRank) {
    const [lo, hi] = intervals[i];
    if (!(lo > 0 || hi < 0)) break;
    decided[i] = true;
  }
  const out = new Map<string, Comparison>();
  pending.forEach((c, i) => {
    const [lo, hi] = intervals[i];
    out.set(c.method, {
      against: c.against,
      n: c.n,
      range: c.range,
      diff: diffs[i].value,
      lo,
      hi,
      level: 1 - steps[i].alpha,
      p: diffs[i].p,
      adjustedP: steps[i].adjustedP,
      resamples,
      verdict: !decided[i] ? 'undecided' : lo > 0 ? 'yes' : 'worse',
    });
  });
  return out;
}

/** The verdict family of one bed: every method on canonical references against signed position and against MC at matched tokens. */
export function compareFamily(
  s: ScoredMethods,
  rng: Rng,
): Record<string, { vsSignedPosition: Comparison | null; vsMcAtCost: Comparison | null }> {
  const names = Object.keys(s.perTrace).filter((m) => m !== 'gold' && parseMethodName(m).rewrite === 'canonical');
  const signed = s.perTrace[SIGNED_POSITION];
  const draws = s.mcSamples
    .map((n) => ({ n, name: mcMethod(n) }))
    .filter((d) => s.perTrace[d.name])
    .map((d) => ({ n: d.n, tokens: s.tokens[d.name], perTrace: s.perTrace[d.name] }));
  const vsSigned: Pending[] = signed
    ? names.filter((m) => m !== SIGNED_POSITION).map((m) => ({ method: m, against: SIGNED_POSITION, other: signed, n: null, range: null }))
    : [];
  const vsMc: Pending[] = [];
  for (const m of names) {
    if (parseMethodName(m).family === 'mc') continue;
    const at = mcAtCost(s.tokens[m], draws);
    if (at) vsMc.push({ method: m, against: 'mc', other: at.perTrace, n: at.n, range: at.range });
  }
  const a = holmFamily(vsSigned, s, rng.fork('signed-position'));
  const b = holmFamily(vsMc, s, rng.fork('mc-at-cost'));
  return Object.fromEntries(names.map((m) => [m, { vsSignedPosition: a.get(m) ?? null, vsMcAtCost: b.get(m) ?? null }]));
}

/** One stress-arm variant: the same variant on rewritten vs canonical references, and its lead over signed position under each. */
export interface StressRow {
  method: string;
  /** The same variant on canonical references (the name without its ~rewrite). */
  canonical: string;
  refs: ReferenceSource;
  rewrite: Rewrite;
  oracle: boolean;
  /** Mean within ρ (all traces) on rewritten and on canonical references. */
  rho: number;
  canonicalRho: number;
  /** Rewritten − canonical, paired, Holm over the bed's stress rows. */
  change: Comparison;
  /** Mean per-trace ρ − signed position's, on canonical and on rewritten references. */
  leadCanonical: number;
  leadRewritten: number;
  /** leadRewritten / leadCanonical when the canonical lead is positive, else null. */
  survives: number | null;
}

/** Every rewritten-reference variant whose canonical twin was scored, against it (one Holm family per bed). */
export function stressRows(s: ScoredMethods, rng: Rng): StressRow[] {
  const rewritten = Object.keys(s.perTrace).filter(
    (m) => m !== 'gold' && parseMethodName(m).rewrite !== 'canonical' && s.perTrace[canonicalName(m)],
  );
  const changes = holmFamily(
    rewritten.map((m) => ({ method: m, against: canonicalName(m), other: s.perTrace[canonicalName(m)], n: null, range: null })),
    s,
    rng,
  );
  const signed = s.perTrace[SIGNED_POSITION];
  const lead = (m: string) => (signed ? mean(s.perTrace[m].map((x, i) => x - signed[i])) : NaN);
  return rewritten.map((m) => {
    const parsed = parseMethodName(m);
    const c = canonicalName(m);
    const leadCanonical = lead(c);
    const leadRewritten = lead(m);
    return {
      method: m,
      canonical: c,
      refs: parsed.refs,
      rewrite: parsed.rewrite,
      oracle: parsed.oracle,
      rho: mean(s.perTrace[m]),
      canonicalRho: mean(s.perTrace[c]),
      change: changes.get(m)!,
      leadCanonical,
      leadRewritten,
      survives: leadCanonical > 0 ? leadRewritten / leadCanonical : null,
    };
  });
}
