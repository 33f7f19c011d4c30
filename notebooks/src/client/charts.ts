import { el } from './dom';
import type { RunDocument } from '../site-data';

type Points = RunDocument['history'][string];

/**
 * What the step of a metric counts, where it is not a training step: mc-variance logs the SD of V_MC at
 * each number of samples per exit point; lm logs one calibration point per exit point and one term pair
 * per correct trace.
 */
const STEP_MEANING: Record<string, Record<string, string>> = {
  'mc-variance': { mean_sd: 'samples per exit point' },
  lm: { 'calibration.': 'exit point (index)', 'terms.': 'correct trace (index)' },
};

/** The x axis title of metric `key` of an `experiment` run ('step' unless the experiment says otherwise). */
export function stepTitle(experiment: string, key: string): string {
  const meanings = STEP_MEANING[experiment] ?? {};
  const hit = Object.keys(meanings).find((k) => key === k || (k.endsWith('.') && key.startsWith(k)));
  return hit ? meanings[hit] : 'step';
}

const finite = (p: Points[number]) => p.value !== null && Number.isFinite(p.value);

/** A metric is a curve when it has more than one step; a single value is a table cell, never a chart. */
export const isCurve = (points: Points) => new Set(points.map((p) => p.step)).size > 1;

/**
 * One line per series of a metric's points by step (series: runs, named by what tells them apart);
 * NaN/±Infinity/null points cannot be drawn and are counted in the subtitle. null when nothing is drawable.
 */
export function curveSpec(key: string, xTitle: string, series: readonly { label: string; points: Points }[]): object | null {
  const values = series.flatMap((s) => s.points.filter(finite).map((p) => ({ series: s.label, step: p.step, value: p.value })));
  if (values.length === 0) return null;
  const dropped = series.reduce((n, s) => n + s.points.length, 0) - values.length;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: key, subtitle: dropped > 0 ? `${dropped} non-finite point(s) not drawn` : '' },
    width: 300,
    height: 150,
    data: { values },
    mark: { type: 'line', point: true, tooltip: true },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: xTitle, axis: { tickMinStep: 1, format: 'd' } },
      y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        legend: series.length > 1 ? { orient: 'bottom', columns: 2, labelLimit: 280 } : null,
      },
    },
  };
}

/**
 * One small multiple of a single-valued metric across a grid: x the first grid key, colour the others
 * (their values), one point per run. null when no run has a finite value.
 */
export function gridSpec(
  key: string,
  gridKeys: readonly string[],
  cells: readonly { grid: Record<string, string>; value: number | null }[],
): object | null {
  const values = cells
    .filter((c) => c.value !== null && Number.isFinite(c.value))
    .map((c) => ({
      x: c.grid[gridKeys[0]] ?? '',
      series: gridKeys
        .slice(1)
        .map((k) => `${k.split('.').pop()}=${c.grid[k]}`)
        .join(', '),
      value: c.value,
    }));
  if (values.length === 0) return null;
  const xs = [...new Set(cells.map((c) => c.grid[gridKeys[0]] ?? ''))];
  const numeric = xs.every((x) => x !== '' && Number.isFinite(Number(x)));
  const sort = numeric ? [...xs].sort((a, b) => Number(a) - Number(b)) : xs;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: key },
    width: 220,
    height: 130,
    data: { values },
    mark: { type: 'line', point: true, tooltip: true },
    encoding: {
      x: { field: 'x', type: 'ordinal', sort, title: gridKeys[0] ?? 'run', axis: { labelAngle: 0 } },
      y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
      color:
        gridKeys.length > 1
          ? { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2, labelLimit: 200 } }
          : { value: '#4c78a8' },
    },
  };
}

/** Renders a vega-lite spec as SVG into a new `.chart` element appended to `parent`; a null spec draws nothing. */
export async function embed(parent: HTMLElement, spec: object | null, label: string): Promise<void> {
  if (spec === null) return;
  const div = el('div', { class: 'chart', 'data-chart': label });
  parent.append(div);
  await vegaEmbed(div, spec, { renderer: 'svg', actions: false });
}
