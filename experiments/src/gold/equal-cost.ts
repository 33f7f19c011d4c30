/**
 * MC at the cost of another method: MC(n)'s quality interpolated linearly in log(tokens) between the
 * two measured n that bracket the method's tokens per trace (the frontier's MC line, read at that x).
 */
export interface McPoint {
  n: number;
  tokens: number;
  quality: number;
}

interface AtCost {
  /** Interpolated quality; null when the cost is outside the measured MC range. */
  quality: number | null;
  /** Interpolated n (in log space), or the bound: '< 1' style text when outside. */
  n: string;
}

export function mcAtCost(tokens: number, mc: readonly McPoint[]): AtCost {
  const pts = [...mc].filter((p) => p.tokens > 0).sort((a, b) => a.tokens - b.tokens);
  if (pts.length === 0 || !(tokens > 0)) return { quality: null, n: '—' };
  if (tokens < pts[0].tokens) return { quality: null, n: `< ${pts[0].n}` };
  const last = pts[pts.length - 1];
  if (tokens > last.tokens) return { quality: null, n: `> ${last.n}` };
  for (let i = 0; i < pts.length; i++) {
    const a = pts[i];
    const b = pts[Math.min(i + 1, pts.length - 1)];
    if (tokens > b.tokens) continue;
    const t = b.tokens === a.tokens ? 0 : (Math.log(tokens) - Math.log(a.tokens)) / (Math.log(b.tokens) - Math.log(a.tokens));
    const n = Math.exp(Math.log(a.n) + t * (Math.log(b.n) - Math.log(a.n)));
    return { quality: a.quality + t * (b.quality - a.quality), n: n.toFixed(1) };
  }
  return { quality: null, n: '—' };
}
