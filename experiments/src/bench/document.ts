/**
 * A bench section's result document in the store. Every number becomes a run metric
 * `<section>.<path>` (arrays index by position: `lm.scoring.perTrace.3.T`), so `rred runs compare`
 * and `--where metrics.…` see them; the rest (text, booleans, nulls, the key order) is the layout,
 * kept as run tag `layout.<section>` with the numbers blanked. readDocument puts the two back together:
 * JSON.stringify of the result equals JSON.stringify of the recorded document.
 */
import type { Run, RunDetail } from '@rred/results-store';

const HOLE = null;

function split(value: unknown, path: string, metrics: Record<string, number>): unknown {
  if (typeof value === 'number') {
    metrics[path] = value;
    return HOLE;
  }
  if (Array.isArray(value)) return value.map((v, i) => split(v, `${path}.${i}`, metrics));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('.')) throw new Error(`bench document ${path}: key '${k}' contains '.', which metric paths cannot hold`);
      if (v !== undefined) out[k] = split(v, `${path}.${k}`, metrics);
    }
    return out;
  }
  return value;
}

function join(layout: unknown, path: string, metrics: Record<string, number | null>): unknown {
  if (layout === HOLE) return path in metrics ? metrics[path] : null;
  if (Array.isArray(layout)) return layout.map((v, i) => join(v, `${path}.${i}`, metrics));
  if (typeof layout === 'object')
    return Object.fromEntries(Object.entries(layout as Record<string, unknown>).map(([k, v]) => [k, join(v, `${path}.${k}`, metrics)]));
  return layout;
}

const layoutTag = (section: string) => `layout.${section}`;

export function recordDocument(run: Run, section: string, document: Record<string, unknown>): void {
  const metrics: Record<string, number> = {};
  const layout = split(document, section, metrics);
  run.logMetrics(metrics);
  run.setTags({ [layoutTag(section)]: JSON.stringify(layout) });
}

export function readDocument(run: RunDetail, section: string): Record<string, unknown> {
  const layout = run.tags[layoutTag(section)];
  if (layout === undefined) throw new Error(`bench run ${run.id}: no ${section} section recorded (tag ${layoutTag(section)} missing)`);
  return join(JSON.parse(layout), section, run.metrics) as Record<string, unknown>;
}
