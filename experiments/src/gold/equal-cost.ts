/**
 * MC at the cost of another method: per trace, MC(n)'s within-trace ρ interpolated linearly in
 * log(tokens) between the two measured draws whose mean tokens per trace bracket the method's (the
 * quality-vs-cost plot's MC line, read at that x, trace by trace so the comparison stays paired).
 * Below the cheapest draw the comparison is with that draw (it costs more than the method: the
 * comparison favours MC); above the dearest, with the dearest (it costs less: the comparison favours the method).
 */
interface McDraw {
  n: number;
  /** Mean tokens forwarded per trace. */
  tokens: number;
  /** Within-trace ρ per trace. [traces] */
  perTrace: readonly number[];
}

interface McAtCost {
  /** Interpolated within-trace ρ per trace. [traces] */
  perTrace: number[];
  /** n at the method's cost, interpolated in log n (the bracketing n when outside the range). */
  n: number;
  /** 'within' the measured range, or 'below' the cheapest / 'above' the dearest draw (then that draw is used). */
  range: 'within' | 'below' | 'above';
}

/** MC(n) at `tokens` per trace from the measured draws; null when no draw has a positive cost. */
export function mcAtCost(tokens: number, draws: readonly McDraw[]): McAtCost | null {
  const pts = draws.filter((d) => d.tokens > 0).sort((a, b) => a.tokens - b.tokens);
  if (pts.length === 0 || Number.isNaN(tokens)) return null;
  const first = pts[0];
  const last = pts[pts.length - 1];
  if (tokens < first.tokens) return { perTrace: first.perTrace.slice(), n: first.n, range: 'below' };
  if (tokens > last.tokens) return { perTrace: last.perTrace.slice(), n: last.n, range: 'above' };
  const i = pts.findIndex((p) => p.tokens >= tokens);
  const b = pts[i];
  const a = pts[Math.max(0, i - 1)];
  const t = b.tokens === a.tokens ? 0 : (Math.log(tokens) - Math.log(a.tokens)) / (Math.log(b.tokens) - Math.log(a.tokens));
  return {
    perTrace: a.perTrace.map((x, j) => x + t * (b.perTrace[j] - x)),
    n: Math.exp(Math.log(a.n) + t * (Math.log(b.n) - Math.log(a.n))),
    range: 'within',
  };
}
