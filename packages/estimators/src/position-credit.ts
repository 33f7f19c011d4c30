/**
 * The outcome-signed position credit, the free baseline of the credit benchmarks: segment k = 1..K of a
 * trace with verifier outcome ζ ∈ {0, 1} gets credit (2ζ − 1)·k. On a correct trace V rises towards 1
 * late, on a wrong one it falls towards 0, so this is what position alone says once the outcome is known.
 * No model, no references, cost 0.
 */
export function signedPositionCredits(segments: number, reward: number): number[] {
  if (!Number.isInteger(segments) || segments < 0) throw new RangeError(`signedPositionCredits: ${segments} segments`);
  if (!Number.isFinite(reward)) throw new RangeError(`signedPositionCredits: reward ${reward}`);
  return Array.from({ length: segments }, (_, i) => (2 * reward - 1) * (i + 1));
}
