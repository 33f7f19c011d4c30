/**
 * Learning rate at optimizer step `step` (0-based): linear warmup from 0 over `warmupSteps`, then
 * cosine decay from `peak` down to `peak * minLrRatio` at `totalSteps` (constant after that).
 * Warmup avoids large early Adam steps while the second-moment estimate is still noisy.
 */
interface LrSchedule {
  peak: number;
  warmupSteps: number;
  totalSteps: number;
  /** Final lr as a fraction of the peak (0 decays to zero). */
  minLrRatio: number;
}

export function learningRateAt(step: number, s: LrSchedule): number {
  if (s.warmupSteps > 0 && step < s.warmupSteps) return (s.peak * (step + 1)) / s.warmupSteps;
  const decaySteps = Math.max(1, s.totalSteps - s.warmupSteps);
  const progress = Math.min(1, Math.max(0, (step - s.warmupSteps) / decaySteps));
  const cosine = 0.5 * (1 + Math.cos(Math.PI * progress));
  const floor = s.peak * s.minLrRatio;
  return floor + (s.peak - floor) * cosine;
}
