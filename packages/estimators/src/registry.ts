/**
 * The estimators by name, behind one interface: experiments, the CLI and the training hooks reach an
 * estimator only through `getEstimator` / `estimatorEntry` and the one list of names, `estimatorMethods`.
 */
import { type Rng, UserError } from '@rred/core';
import type { LanguageModel, SequenceCache, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { gradientAttribution, type GradientConfigInput } from './gradient';
import { leaveOneOut, type LooConfigInput } from './loo';
import { truncatedMc, type McConfigInput } from './mc';
import { rredcot, rredcotBatch } from './rredcot';
import type { RredcotConfigInput } from './rredcot-config';
import type { Estimator, EstimatorInputs, EstimatorResult } from './types';

export const estimatorMethods = ['rredcot', 'mc', 'loo', 'gradient'] as const;
export type EstimatorMethod = (typeof estimatorMethods)[number];

/** One trace of a batch: what an estimator takes besides the model and the config. */
interface EstimatorItem {
  trace: Trace;
  segments: Segment[];
  inputs: EstimatorInputs;
  /** The item's own stream (methods that sample: mc). */
  rng?: Rng;
  /** The sampler's cache of the trace; used only by an entry with `readsSamplerCache`. */
  cache?: SequenceCache;
}

/** What to do with a trace whose reference suffix does not fit the context (RREDCoT): the config's `overlong` is replaced by it. */
interface BatchOptions {
  overlong?: 'uniform' | 'error';
}

interface EstimatorEntry {
  /** Credits of one trace. */
  estimate: Estimator<unknown>;
  /** Credits of many traces with one config: RREDCoT scores them all in one model call, the others go trace by trace. */
  estimateMany(
    model: LanguageModel,
    items: readonly EstimatorItem[],
    config: unknown,
    options?: BatchOptions,
  ): Promise<EstimatorResult<unknown>[]>;
  /** True when `estimateMany` scores from the items' sampler caches (only the suffixes are forwarded). */
  readsSamplerCache: boolean;
}

/** An entry that runs `estimate` trace by trace. */
function oneByOne(estimate: Estimator<unknown>): EstimatorEntry {
  return {
    estimate,
    estimateMany: async (model, items, config) => {
      const out: EstimatorResult<unknown>[] = [];
      for (const it of items) out.push(await estimate(model, it.trace, it.segments, it.inputs, config, it.rng));
      return out;
    },
    readsSamplerCache: false,
  };
}

/** Configs are validated inside each estimator (zod, strict), so passing `unknown` through is safe. */
const registry: Record<EstimatorMethod, EstimatorEntry> = {
  rredcot: {
    estimate: (m, t, s, i, c) => rredcot(m, t, s, i, c as RredcotConfigInput),
    estimateMany: (model, items, config, options) => {
      const overlong = options?.overlong;
      const cfg: RredcotConfigInput = { ...(config as RredcotConfigInput | undefined), ...(overlong ? { overlong } : {}) };
      return rredcotBatch(
        model,
        items.map(({ trace, segments, inputs, cache }) => ({ trace, segments, inputs, ...(cache ? { cache } : {}) })),
        cfg,
      );
    },
    readsSamplerCache: true,
  },
  mc: oneByOne((m, t, s, i, c, rng) => {
    if (!rng) throw new UserError('mc: an Rng is required');
    return truncatedMc(m, t, s, i, c as McConfigInput, rng);
  }),
  loo: oneByOne((m, t, s, i, c) => leaveOneOut(m, t, s, i, c as LooConfigInput)),
  gradient: oneByOne((m, t, s, i, c) => gradientAttribution(m, t, s, i, c as GradientConfigInput)),
};

/** The entry of a method by name; an unknown name is a one-line error listing the known ones. */
export function estimatorEntry(method: string): EstimatorEntry {
  if (!(estimatorMethods as readonly string[]).includes(method)) {
    throw new UserError(`unknown estimator '${method}': expected one of ${estimatorMethods.join(', ')}`);
  }
  return registry[method as EstimatorMethod];
}

/** The single-trace estimator of a method by name. */
export function getEstimator(method: string): Estimator<unknown> {
  return estimatorEntry(method).estimate;
}
