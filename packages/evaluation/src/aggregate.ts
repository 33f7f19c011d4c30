import { bootstrapMeanInterval, mean, wilsonInterval, type Interval, type Rng } from '@rred/core';
import { avgAtK, majAtK, passAtK } from './estimators';

/** The n sampled completions of one problem after verification. */
export interface ProblemSamples {
  problemId: string;
  /** Verifier reward ζ ∈ {0, 1} per sample. */
  rewards: number[];
  /** Extracted answer per sample (null when none), for maj@k. */
  answers: (string | null)[];
}

export interface MetricValue {
  /** Mean over problems of the per-problem estimate. */
  value: number;
  interval: Interval;
}

export interface SplitMetrics {
  problems: number;
  samplesPerProblem: number;
  k: number;
  avgAtK: MetricValue;
  passAtK: MetricValue;
  majAtK: MetricValue;
}

interface AggregateOptions {
  k: number;
  /** 'wilson': binomial score interval; 'bootstrap': percentile bootstrap over problems. */
  interval: 'wilson' | 'bootstrap';
  level: number;
  /** Bootstrap resamples (ignored for Wilson). */
  resamples: number;
}

/**
 * Dataset-level avg@k, pass@k (unbiased, from all n samples) and maj@k (first k samples), each the
 * mean of per-problem values with a confidence interval. Wilson intervals treat avg@k as a binomial
 * proportion over problems × k samples and pass@k / maj@k as proportions over problems (samples of one
 * problem are correlated, so the bootstrap over problems is the more honest choice for avg@k).
 */
export function aggregate(samples: readonly ProblemSamples[], options: AggregateOptions, rng: Rng): SplitMetrics {
  if (samples.length === 0) throw new RangeError('aggregate: no problems');
  const { k } = options;
  const n = Math.min(...samples.map((s) => s.rewards.length));
  const avg = samples.map((s) => avgAtK(s.rewards, k));
  const pass = samples.map((s) => passAtK(s.rewards.length, s.rewards.filter((r) => r > 0).length, k));
  const maj = samples.map((s) => majAtK(s.answers, s.rewards, k));
  const metric = (values: number[], trialsPerValue: number, label: string): MetricValue => {
    if (values.some(Number.isNaN)) throw new RangeError('aggregate: NaN per-problem value');
    const value = mean(values);
    const interval =
      options.interval === 'wilson'
        ? wilsonInterval(
            // clamp float round-off of mean × count back into [0, trials]
            Math.min(values.length * trialsPerValue, Math.max(0, value * values.length * trialsPerValue)),
            values.length * trialsPerValue,
            options.level,
          )
        : bootstrapMeanInterval(values, rng.fork(`bootstrap-${label}`), options.resamples, options.level);
    return { value, interval };
  };
  return {
    problems: samples.length,
    samplesPerProblem: n,
    k,
    avgAtK: metric(avg, k, 'avg'),
    passAtK: metric(pass, 1, 'pass'),
    majAtK: metric(maj, 1, 'maj'),
  };
}
