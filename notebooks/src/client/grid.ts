import { formatFloat, type RunDetail } from '@rred/results-store';
import { curveSpec, embed, gridSpec, isCurve, stepTitle } from './charts';
import type { loadRun } from './data';
import { el, runLink, table } from './dom';

type RunDoc = Awaited<ReturnType<typeof loadRun>>;

/**
 * The params that tell runs apart: the grid keys of the sweep they are children of (its config.grid), else
 * every param whose value differs between them, in name order.
 */
export function gridKeys(runs: readonly RunDetail[], sweep: RunDetail | null): string[] {
  const grid = (sweep?.config as { grid?: Record<string, unknown> } | undefined)?.grid;
  if (grid && Object.keys(grid).length) return Object.keys(grid);
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.params)))].sort();
  return keys.filter((k) => new Set(runs.map((r) => r.params[k] ?? '')).size > 1);
}

const valueOf = (run: RunDetail, key: string) => run.params[key] ?? '(unset)';

/** `key=value` of each grid key (short key names), what a series of a curve is called. */
const gridLabel = (run: RunDetail, keys: readonly string[]) =>
  keys.length ? keys.map((k) => `${k.split('.').pop()}=${valueOf(run, k)}`).join(', ') : run.id;

/**
 * The runs side by side: a table with one column per grid key and per single-valued metric, then one
 * small multiple per metric across the grid (single values: x the first grid key, colour the others;
 * curves: one line per run, named by its grid values). Metrics without a finite value get no chart.
 */
export async function gridSection(
  main: HTMLElement,
  docs: readonly RunDoc[],
  keys: readonly string[],
  attrs: Record<string, string> = { class: 'grid' },
): Promise<void> {
  const metricKeys = [...new Set(docs.flatMap((d) => Object.keys(d.history)))].sort();
  const curves = metricKeys.filter((k) => docs.some((d) => d.history[k] && isCurve(d.history[k])));
  const single = metricKeys.filter((k) => !curves.includes(k));
  const short = (v: number | null | undefined) =>
    v === undefined ? '' : v === null || !Number.isFinite(v) ? formatFloat(v) : String(Number(v.toPrecision(4)));
  main.append(
    el(
      'div',
      { class: 'scroll' },
      table(
        ['run', 'status', ...keys, ...single],
        docs.map((d) => [
          runLink(d.run.id),
          d.run.status,
          ...keys.map((k) => valueOf(d.run, k)),
          ...single.map((k) => short(d.run.metrics[k])),
        ]),
        attrs,
      ),
    ),
  );
  if (metricKeys.length === 0) return;
  // a single value that is the same for every run is said once, not drawn as a flat line
  const same = single.filter((k) => docs.length > 1 && docs.every((d) => d.run.metrics[k] === docs[0].run.metrics[k]));
  const charts = el('div', { class: 'charts' });
  main.append(el('h3', {}, `Each metric across ${keys.length ? keys.join(' × ') : 'the runs'}`));
  if (same.length)
    main.append(
      el('p', { class: 'muted' }, `The same for every run: ${same.map((k) => `${k} = ${short(docs[0].run.metrics[k])}`).join(', ')}.`),
    );
  main.append(charts);
  for (const k of single.filter((x) => !same.includes(x))) {
    const cells = docs.map((d) => ({ grid: Object.fromEntries(keys.map((g) => [g, valueOf(d.run, g)])), value: d.run.metrics[k] ?? null }));
    await embed(
      charts,
      gridSpec(k, keys.length ? keys : ['run'], keys.length ? cells : cells.map((c, i) => ({ ...c, grid: { run: docs[i].run.id } }))),
      k,
    );
  }
  for (const k of curves) {
    const series = docs.filter((d) => d.history[k]).map((d) => ({ label: gridLabel(d.run, keys), points: d.history[k] }));
    await embed(charts, curveSpec(k, stepTitle(docs[0].run.experiment, k), series), k);
  }
}
