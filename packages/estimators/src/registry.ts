/** The estimators by name, behind one signature, for experiments and the CLI. */
import { UserError } from '@rred/core';
import { gradientAttribution, type GradientConfigInput } from './gradient';
import { leaveOneOut, type LooConfigInput } from './loo';
import { truncatedMc, type McConfigInput } from './mc';
import { rredcot } from './rredcot';
import type { RredcotConfigInput } from './rredcot-config';
import type { Estimator } from './types';

export const estimatorMethods = ['rredcot', 'mc', 'loo', 'gradient'] as const;
export type EstimatorMethod = (typeof estimatorMethods)[number];

/** Configs are validated inside each estimator (zod, strict), so passing `unknown` through is safe. */
const registry: Record<EstimatorMethod, Estimator<unknown>> = {
  rredcot: (m, t, s, i, c) => rredcot(m, t, s, i, c as RredcotConfigInput),
  mc: (m, t, s, i, c, rng) => {
    if (!rng) throw new UserError('mc: an Rng is required');
    return truncatedMc(m, t, s, i, c as McConfigInput, rng);
  },
  loo: (m, t, s, i, c) => leaveOneOut(m, t, s, i, c as LooConfigInput),
  gradient: (m, t, s, i, c) => gradientAttribution(m, t, s, i, c as GradientConfigInput),
};

export function getEstimator(method: string): Estimator<unknown> {
  if (!(estimatorMethods as readonly string[]).includes(method)) {
    throw new UserError(`unknown estimator '${method}': expected one of ${estimatorMethods.join(', ')}`);
  }
  return registry[method as EstimatorMethod];
}
