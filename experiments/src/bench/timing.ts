/** Wall-clock timing of a synchronous step: warm-up runs, then the median and minimum of `reps` runs. */
export interface Timing {
  medianMs: number;
  minMs: number;
  reps: number;
  allMs: number[];
}

export function timeRuns(run: () => void, warmup: number, reps: number, onRep?: () => void): Timing {
  for (let i = 0; i < warmup; i++) {
    run();
    onRep?.();
  }
  const allMs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    run();
    allMs.push(performance.now() - t0);
    onRep?.();
  }
  const sorted = [...allMs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const medianMs = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { medianMs: round(medianMs), minMs: round(sorted[0]), reps, allMs: allMs.map((x) => round(x)) };
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
