/**
 * The quality-vs-cost plot of the gold benchmark (results/gold/frontier.*): per bed, within ρ with
 * ΔV_gold over all traces (CI bars) against tokens forwarded per trace (log), MC(n) as a line, every
 * other method on canonical references a point (oracle variants, which read the task's alignment, as
 * triangles), and as horizontal lines the free baselines (outcome-signed position and length) and the
 * gold's own ceiling √rel.
 */
import type { Store } from '@rred/results-store';
import { writePlot } from '../report/plot';
import { fmt } from '@rred/core';
import { analyzeGold, type CheckpointMetrics } from './analysis';
import { loadGold } from './load';
import { parseMethodName } from './names';
import { SIGNED_POSITION } from './verdict';

const GROUPS = ['MC(n)', 'RREDCoT, dataset refs', 'RREDCoT, own refs', 'RREDCoT, both', 'LOO', 'gradient'] as const;
const COLORS = ['#1f4e9c', '#2ca02c', '#9467bd', '#17becf', '#d62728', '#ff7f0e'];
const LINES = ['signed position (free)', 'signed length (free)', 'gold ceiling √rel'] as const;

function groupOf(method: string): string | null {
  const p = parseMethodName(method);
  if (p.family === 'mc') return GROUPS[0];
  if (p.family === 'loo') return 'LOO';
  if (p.family === 'gradient') return 'gradient';
  if (p.family !== 'rredcot' || p.rewrite !== 'canonical') return null;
  return p.refs === 'dataset' ? GROUPS[1] : p.refs === 'own' ? GROUPS[2] : GROUPS[3];
}

/** The best method of a kind by ρ over all traces, or null. */
function best(c: CheckpointMetrics, pick: (m: string) => boolean): string | null {
  const xs = Object.entries(c.methods)
    .filter(([m, x]) => pick(m) && Number.isFinite(x.subsets.all.within.all.value))
    .sort(([a, x], [b, y]) => y.subsets.all.within.all.value - x.subsets.all.within.all.value || (a < b ? -1 : 1));
  return xs.length ? xs[0][0] : null;
}

function panelData(checkpoint: string, c: CheckpointMetrics) {
  const isRr = (m: string) => parseMethodName(m).family === 'rredcot' && parseMethodName(m).rewrite === 'canonical';
  const bestFree = best(c, (m) => isRr(m) && !parseMethodName(m).oracle);
  const bestOracle = best(c, (m) => isRr(m) && parseMethodName(m).oracle);
  const label = (m: string) => {
    const p = parseMethodName(m);
    if (p.family === 'mc') return String(p.n);
    return p.family === 'rredcot' ? '' : m;
  };
  const bestOf = (m: string) => (m === bestFree ? 'free' : m === bestOracle ? 'oracle' : '');
  const points = Object.entries(c.methods).flatMap(([method, m]) => {
    const group = groupOf(method);
    if (group === null || !(m.tokensPerTrace > 0)) return [];
    const w = m.subsets.all.within.all;
    return [
      {
        kind: 'point',
        checkpoint,
        method,
        group,
        alignment: m.oracle ? 'oracle (task alignment)' : 'alignment-free',
        label: label(method),
        best: bestOf(method),
        note: `${bestOf(method) === 'free' ? 'best alignment-free' : 'best oracle (task alignment)'}: ${method} (ρ ${fmt(w.value)})`,
        tokens: m.tokensPerTrace,
        rho: w.value,
        lo: w.lo,
        hi: w.hi,
      },
    ];
  });
  const line = (name: string, y: number | undefined) =>
    y === undefined || !Number.isFinite(y) ? [] : [{ kind: 'line', checkpoint, line: name, rho: y }];
  return [
    ...points,
    ...line(LINES[0], c.methods[SIGNED_POSITION]?.subsets.all.within.all.value),
    ...line(LINES[1], c.methods.signedLength?.subsets.all.within.all.value),
    ...line(LINES[2], c.gold.all.ceiling.value),
  ];
}

/** The frontier's encodings: x tokens (log), y ρ from `lowest` to 1, colours by method group, shapes by alignment, the baselines' dashes. */
function encodings(lowest: number) {
  const x = { field: 'tokens', type: 'quantitative', scale: { type: 'log' }, title: 'tokens forwarded per trace (log)' };
  const y = {
    field: 'rho',
    type: 'quantitative',
    scale: { domain: [lowest, 1] },
    title: 'within-trace ρ with ΔV_gold, all traces (mean, 95% CI)',
  };
  const color = {
    field: 'group',
    type: 'nominal',
    title: 'method',
    scale: { domain: GROUPS, range: COLORS },
    legend: { orient: 'bottom', columns: 3, labelLimit: 400, symbolOpacity: 1 },
  };
  const shape = {
    field: 'alignment',
    type: 'nominal',
    title: null,
    scale: { domain: ['alignment-free', 'oracle (task alignment)'], range: ['circle', 'triangle-up'] },
    legend: { orient: 'bottom', direction: 'vertical', labelLimit: 400 },
  };
  const lineStyle = {
    field: 'line',
    type: 'nominal',
    title: null,
    scale: {
      domain: LINES,
      range: [
        [6, 3],
        [2, 2],
        [1, 0],
      ],
    },
    legend: { orient: 'bottom' },
  };
  const lineColor = {
    field: 'line',
    type: 'nominal',
    title: null,
    scale: { domain: LINES, range: ['#555555', '#999999', '#b2182b'] },
    legend: { orient: 'bottom', direction: 'vertical', labelLimit: 400 },
  };
  return { x, y, color, shape, lineStyle, lineColor };
}

/** The frontier's layers: baselines, CI bars, the MC(n) line, the points, their labels, the best of each kind ringed and named. */
function layers({ x, y, color, shape, lineStyle, lineColor }: ReturnType<typeof encodings>) {
  return [
    {
      transform: [{ filter: "datum.kind === 'line'" }],
      mark: { type: 'rule', strokeWidth: 1.5 },
      encoding: { y, strokeDash: lineStyle, stroke: lineColor },
    },
    {
      transform: [{ filter: "datum.kind === 'point'" }],
      mark: { type: 'rule', opacity: 0.35 },
      encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color },
    },
    {
      transform: [{ filter: "datum.group === 'MC(n)'" }],
      mark: { type: 'line' },
      encoding: { x, y, color, order: { field: 'tokens', type: 'quantitative' } },
    },
    {
      transform: [{ filter: "datum.kind === 'point'" }],
      mark: { type: 'point', filled: true, size: 50, opacity: 0.85 },
      encoding: { x, y, color, shape },
    },
    {
      transform: [{ filter: "datum.group === 'MC(n)'" }],
      mark: { type: 'text', align: 'center', dy: 12, fontSize: 9 },
      encoding: { x, y, text: { field: 'label' }, color },
    },
    {
      transform: [{ filter: "datum.kind === 'point' && datum.group !== 'MC(n)' && datum.label !== ''" }],
      mark: { type: 'text', align: 'left', dx: 7, dy: -2, fontSize: 9 },
      encoding: { x, y, text: { field: 'label' }, color },
    },
    // the best alignment-free and the best oracle variant: ringed, named in the panel's top-left corner
    {
      transform: [{ filter: "datum.best !== ''" }],
      mark: { type: 'point', shape: 'circle', size: 260, filled: false, stroke: 'black', strokeWidth: 1.2 },
      encoding: { x, y },
    },
    ...(['oracle', 'free'] as const).map((kind, i) => ({
      transform: [{ filter: `datum.best === '${kind}'` }],
      mark: { type: 'text', align: 'left', baseline: 'top', fontSize: 9, x: 6, y: 6 + 13 * i },
      encoding: { text: { field: 'note' } },
    })),
  ];
}

export async function renderGoldPlots(store: Store, runId: string, outDir: string): Promise<string[]> {
  const data = loadGold(store, runId);
  const a = analyzeGold(data);
  const values = data.checkpoints.flatMap((b) => panelData(b, a.checkpoints[b]));
  // the y axis from the lowest CI bound or line (in steps of 0.2, at most −0.4) to 1
  const lows = values.map((v) => ('lo' in v ? v.lo : v.rho)).filter(Number.isFinite);
  const lowest = Math.min(-0.4, Math.round(10 * Math.floor(Math.min(...lows) / 0.2) * 0.2) / 10);
  const spec = {
    title: {
      text: 'Credit quality vs cost: within-trace ρ with ΔV_gold over all traces',
      subtitle: [
        `run ${runId}. MC(n): a line labelled by n. Points: RREDCoT on canonical references,`,
        "LOO, gradient (triangles: oracle variants that read the task's alignment; ringed: the best of each kind).",
        "Horizontal: the free outcome-signed baselines and the gold's own ceiling √rel. Bars: 95% bootstrap CI over traces.",
      ],
    },
    data: { values },
    facet: { column: { field: 'checkpoint', type: 'nominal', title: null, sort: data.checkpoints } },
    bounds: 'flush',
    spacing: 40,
    spec: {
      width: 430,
      height: 340,
      layer: layers(encodings(lowest)),
    },
    resolve: { scale: { x: 'independent' } },
  };
  return writePlot(outDir, 'frontier', spec);
}
