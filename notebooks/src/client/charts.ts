import { el } from './dom';
import type { RunDocument } from '../site-data';

/** One line per run of a metric's points by step; NaN/±Infinity/null points cannot be drawn and are counted in the title. */
export function curveSpec(key: string, series: readonly { run: string; points: RunDocument['history'][string] }[]): object {
  const values = series.flatMap((s) =>
    s.points.filter((p) => p.value !== null && Number.isFinite(p.value)).map((p) => ({ run: s.run, step: p.step, value: p.value })),
  );
  const dropped = series.reduce((n, s) => n + s.points.length, 0) - values.length;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: key, subtitle: dropped > 0 ? `${dropped} non-finite point(s) not drawn` : '' },
    width: 320,
    height: 160,
    data: { values },
    mark: { type: 'line', point: true, tooltip: true },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'step' },
      y: { field: 'value', type: 'quantitative', title: key, scale: { zero: false } },
      color: { field: 'run', type: 'nominal', title: 'run', legend: series.length > 1 ? {} : null },
    },
  };
}

/** Renders a vega-lite spec as SVG into a new `.chart` element appended to `parent`. */
export async function embed(parent: HTMLElement, spec: object, label: string): Promise<void> {
  const div = el('div', { class: 'chart', 'data-chart': label });
  parent.append(div);
  await vegaEmbed(div, spec, { renderer: 'svg', actions: false });
}
