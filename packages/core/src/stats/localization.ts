/**
 * Error localization: does a credit method blame the segment that holds a failed trace's first error
 * (the task's step oracle knows it)? Orientation throughout: LOWER credit = MORE blame, so a method
 * localizes well when the error segment has the most negative credit of its trace.
 */
import * as ss from 'simple-statistics';
import type { Rng } from '../rng';
import { clusterBootstrapEstimate, type BootstrapOptions, type Estimate } from './bootstrap';
import { mean } from './descriptive';

/** One failed trace: a credit per segment (K ≥ 1) and the index of the segment with the first error. */
export interface LocalizedTrace {
  credits: readonly number[];
  errorSegment: number;
}

interface LocalizationTop1 extends Estimate {
  /** What a uniformly random pick scores: mean over traces of 1/K. */
  chance: number;
  traces: number;
}

function check(traces: readonly LocalizedTrace[], caller: string): void {
  traces.forEach(({ credits, errorSegment }, i) => {
    if (!(Number.isInteger(errorSegment) && errorSegment >= 0 && errorSegment < credits.length)) {
      throw new RangeError(`${caller}: trace ${i}: errorSegment must be an integer in [0, ${credits.length}), got ${errorSegment}`);
    }
  });
}

/**
 * A trace's top-1 score: 1 when its minimum credit is at the error segment, 0 when it is elsewhere; on a
 * tie for the minimum, 1/#tied when the error segment is among the tied (the expected score of breaking
 * the tie at random), else 0. NaN when a credit is NaN.
 */
function top1Score({ credits, errorSegment }: LocalizedTrace): number {
  if (credits.some(Number.isNaN)) return NaN;
  const lowest = Math.min(...credits);
  if (credits[errorSegment] !== lowest) return 0;
  return 1 / credits.filter((c) => c === lowest).length;
}

/**
 * Share of traces whose most negative credit lands on the error segment (ties scored as in top1Score),
 * with a percentile bootstrap interval over traces (seeded by `rng`), and the chance level mean(1/K).
 * No traces → NaN; a NaN credit → NaN. Throws RangeError for an error segment outside its trace.
 */
export function localizationTop1(traces: readonly LocalizedTrace[], rng: Rng, options: BootstrapOptions = {}): LocalizationTop1 {
  check(traces, 'localizationTop1');
  const estimate = clusterBootstrapEstimate(
    traces.map((t) => [top1Score(t)]),
    mean,
    rng,
    options,
  );
  return { ...estimate, chance: mean(traces.map((t) => 1 / t.credits.length)), traces: traces.length };
}

/**
 * AUC of credit for "holds the first error", pooled over the segments of all traces: the probability that
 * a random error segment has a LOWER credit than a random non-error segment, ties counting ½ (the
 * Mann–Whitney U of the non-error credits over the error credits, divided by the number of pairs; the
 * rank sum is simple-statistics' `wilcoxonRankSum`, which gives tied values their average rank). 1: the
 * error segment always has the most negative credit; 0.5: no better than chance; 0: always the least
 * blamed. Pooling compares credits across traces, so it also rewards a method whose credit scale is
 * comparable between traces. NaN when one class is empty (no traces, or only 1-segment traces) or a
 * credit is NaN.
 */
export function localizationAuc(traces: readonly LocalizedTrace[]): number {
  check(traces, 'localizationAuc');
  const error = traces.map((t) => t.credits[t.errorSegment]);
  const other = traces.flatMap((t) => t.credits.filter((_, k) => k !== t.errorSegment));
  if (error.length === 0 || other.length === 0 || error.some(Number.isNaN) || other.some(Number.isNaN)) return NaN;
  const rankSum = ss.wilcoxonRankSum(other, error);
  const u = rankSum - (other.length * (other.length + 1)) / 2;
  return u / (other.length * error.length);
}
