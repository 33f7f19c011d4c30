// TEMPORARY stand-in for the oracle helper's stats (packages/core/src/stats); deleted on rebase.
import { clusterBootstrap, mean, percentileInterval, spearman, type Rng } from '@rred/core';

interface Ci {
  value: number;
  lo: number;
  hi: number;
}
export function withinTraceSpearman(
  pairs: readonly { x: readonly number[]; y: readonly number[] }[],
  resamples: number,
  level: number,
  rng: Rng,
): Ci & { tracesUsed: number } {
  const rhos = pairs.map((p) => spearman(p.x, p.y)).filter((r) => Number.isFinite(r));
  const reps = clusterBootstrap(
    rhos.map((r) => [r]),
    resamples,
    rng,
    (s) => mean(s),
  );
  const [lo, hi] = percentileInterval(reps.filter((r) => !Number.isNaN(r)), level);
  return { value: mean(rhos), lo, hi, tracesUsed: rhos.length };
}
export function localizationTop1(
  items: readonly { credits: readonly number[]; error: number }[],
  resamples: number,
  level: number,
  rng: Rng,
): Ci & { chance: number; tracesUsed: number } {
  const hits = items.map((it) => (it.credits.indexOf(Math.min(...it.credits)) === it.error ? 1 : 0));
  const reps = clusterBootstrap(
    hits.map((h) => [h]),
    resamples,
    rng,
    (s) => mean(s),
  );
  const [lo, hi] = percentileInterval(reps.filter((r) => !Number.isNaN(r)), level);
  return { value: mean(hits), lo, hi, chance: mean(items.map((it) => 1 / it.credits.length)), tracesUsed: items.length };
}
export function auc(scores: readonly number[], labels: readonly boolean[]): number {
  let s = 0;
  let n = 0;
  scores.forEach((a, i) => {
    if (!labels[i]) return;
    scores.forEach((b, j) => {
      if (labels[j]) return;
      n++;
      s += a > b ? 1 : a === b ? 0.5 : 0;
    });
  });
  return n ? s / n : NaN;
}
export function splitHalfReliability(
  halves: readonly { a: readonly number[]; b: readonly number[] }[],
  resamples: number,
  level: number,
  rng: Rng,
): { reliability: Ci; ceiling: Ci; tracesUsed: number } {
  const r = withinTraceSpearman(
    halves.map((h) => ({ x: h.a, y: h.b })),
    resamples,
    level,
    rng,
  );
  const sb = (x: number) => (2 * x) / (1 + x);
  const rel = { value: sb(r.value), lo: sb(r.lo), hi: sb(r.hi) };
  const sq = (x: number) => Math.sqrt(Math.max(0, x));
  return { reliability: rel, ceiling: { value: sq(rel.value), lo: sq(rel.lo), hi: sq(rel.hi) }, tracesUsed: r.tracesUsed };
}
