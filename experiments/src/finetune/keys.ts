/** Metric keys of a finetune parent run and of its child runs (written by compute.ts and child.ts, read by load.ts). */
import type { Method } from './config';

/** Metric keys of a child run. */
export const KEYS = {
  validationAvg: 'validation.avg_at_k',
  validationPass: 'validation.pass_at_k',
  validationSeconds: 'validation.train_seconds',
  fallback: 'redistribution.fallback_traces',
  estimated: 'redistribution.estimated_traces',
  bestStep: 'best.step',
  trainSeconds: 'train.seconds',
  evalAvg: (which: 'final' | 'best', split: string) => `eval.${which}.${split}.avg_at_k`,
  evalPass: (which: 'final' | 'best', split: string) => `eval.${which}.${split}.pass_at_k`,
} as const;

/**
 * Parent-run metric of the starting model: `base.<split>.avg_at_k` on the primary test bed,
 * `base.<bed>.<split>.avg_at_k` on the others; step = index of the seed in config.seeds.
 */
export const baseKey = (split: string, testBed: string | null = null) => `base.${testBed === null ? '' : `${testBed}.`}${split}.avg_at_k`;

/**
 * Parent-run summary of a method: avg@k at the final (or best) checkpoint, mean over the eval splits
 * per seed, then over seeds (the "mean over splits" column of table.md). A sweep report shows these.
 */
export const summaryKey = (which: 'final' | 'best', method: Method, testBed: string | null = null) =>
  `summary.${testBed === null ? '' : `${testBed}.`}${which}.${method}.mean_avg_at_k`;
