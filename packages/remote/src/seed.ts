import type { Rng } from '@rred/core';

/**
 * How a sample() call's Rng becomes the request's integer seed. rred serve samples a request with seed s
 * exactly as the in-process sampler does with `new Rng(s)` (same batch, same draws), so:
 * - a fresh generator (no draws yet — every caller in this repo passes a fresh `rng.fork(...)`) sends its
 *   own seed, and afterwards is advanced by the draws the in-process sampler would have made (one per
 *   sampled token when temperature > 0, none when greedy), so caller and in-process stay in step;
 * - a generator that has drawn already sends one fresh 32-bit draw instead: reproducible run to run,
 *   but no longer the in-process samples.
 * Real servers (SGLang's sampling_seed, vLLM's seed) seed their own generators: reproducible on one
 * server build and GPU at best, never equal to the in-process samples.
 */
export function requestSeed(rng: Rng): { seed: number; mirrorsInProcess: boolean } {
  if (rng.draws === 0) return { seed: rng.seed, mirrorsInProcess: true };
  return { seed: rng.nextUint32(), mirrorsInProcess: false };
}

/** Advances `rng` past the draws the in-process sampler makes for `generated` tokens at `temperature`. */
export function advancePastSampling(rng: Rng, generated: number, temperature: number): void {
  if (temperature === 0) return;
  for (let i = 0; i < generated; i++) rng.nextUint32();
}
