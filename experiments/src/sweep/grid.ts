/**
 * Sweep grids: `{experiment, base?, grid: {key: [values]}}`. Keys are dotted config paths of the
 * experiment (e.g. "segmentation.maxSegments"); the sweep runs the cartesian product, each point being
 * defaults ⊕ base ⊕ {key: value}. Every point is validated before anything is written.
 */
import { applyOverrides, canonicalJson, parseConfig, UserError } from '@rred/core';
import { configHash } from '@rred/results-store';
import { z } from 'zod';
import type { ExperimentDefinition } from '../common/experiment';

export const gridSpecSchema = z
  .object({
    experiment: z
      .string()
      .min(1)
      .describe(
        'Experiment whose config is swept: a registered experiment with a sweep entry (experiments/src/registry.ts): mc-variance, correlation, finetune.',
      ),
    base: z
      .record(z.unknown())
      .default({})
      .describe('Dotted config paths set for every point, on top of experiments/configs/<experiment>.json.'),
    grid: z
      .record(z.array(z.unknown()).min(1))
      .refine((g) => Object.keys(g).length > 0, 'grid needs at least one key')
      .describe('Dotted config path → list of values; the sweep runs their cartesian product (last key varies fastest).'),
  })
  .strict();

export type GridSpec = z.infer<typeof gridSpecSchema>;

export interface SweepPoint {
  index: number;
  /** The grid values of this point (dotted path → value). */
  overrides: Record<string, unknown>;
  /** Short label, e.g. "segmentation.maxSegments=5, segmentation.strategy=keyword". */
  label: string;
  config: Record<string, unknown>;
  configHash: string;
}

function cartesian(grid: Record<string, readonly unknown[]>): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(grid)) {
    out = out.flatMap((partial) => values.map((v) => ({ ...partial, [key]: v })));
  }
  return out;
}

function pointLabel(overrides: Record<string, unknown>): string {
  return Object.entries(overrides)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : canonicalJson(v)}`)
    .join(', ');
}

/**
 * Resolves every point to a validated config. A grid key that is not a config path, or a value of the
 * wrong type, fails here (UserError naming the point), before any run opens.
 */
export function expandGrid(def: ExperimentDefinition, spec: GridSpec, defaults: Record<string, unknown>, source: string): SweepPoint[] {
  const base = applyOverrides(defaults, spec.base);
  const points = cartesian(spec.grid).map((overrides, index) => {
    const label = pointLabel(overrides);
    const config = parseConfig(def.schema, applyOverrides(base, overrides), `${source}, point ${index} (${label})`) as Record<
      string,
      unknown
    >;
    return { index, overrides, label, config, configHash: configHash(config) };
  });
  const seen = new Map<string, number>();
  for (const p of points) {
    const earlier = seen.get(p.configHash);
    if (earlier !== undefined) throw new UserError(`${source}: points ${earlier} and ${p.index} resolve to the same config (${p.label})`);
    seen.set(p.configHash, p.index);
  }
  return points;
}
