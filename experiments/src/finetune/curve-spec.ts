/**
 * The learning-curve figures of results/finetune/ (curves_by_step, curves_by_time): one row of panels per
 * method group, one panel per test bed in a row, GRPO (the baseline) drawn in every row, so no panel holds
 * more than a group's few methods.
 */
import type { FinetuneSummary } from './summary';

const BASELINE = 'grpo';

/**
 * The method groups, one figure row each, in figure order: a method goes to the first group whose test
 * accepts it; a method no group names (a new arm) goes to 'other credit'.
 */
const METHOD_GROUPS: readonly { name: string; has: (method: string) => boolean }[] = [
  { name: 'RREDCoT arms', has: (m) => m.startsWith('rredcot') },
  { name: 'controls', has: (m) => ['sigma-shuffle', 'signed-position', 'grpo-ref-sft'].includes(m) },
  { name: 'step scores (VeriGate, oracle)', has: (m) => m.startsWith('verigate') || m === 'oracle' },
  { name: 'other credit', has: () => true },
];

/** The group (figure row) of a method; GRPO alone is the 'baseline' row (when it is the only method). */
export function methodGroup(method: string): string {
  if (method === BASELINE) return 'baseline';
  return METHOD_GROUPS.find((g) => g.has(method))!.name;
}

/** Vega's category10 scheme: a row's methods in config order; GRPO is dark grey in every row. */
const CATEGORY10 = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#bcbd22', '#17becf', '#7f7f7f'];
const BASELINE_COLOR = '#404040';

interface CurveDatum {
  kind: 'seed' | 'mean';
  bed: string;
  method: string;
  /** Thin lines: one per seed run; thick: one per method and bed. */
  run: string;
  x: number;
  avg: number;
}

/** A row's points: the group's methods on every bed that runs one of them, with GRPO on those beds. */
function rowValues(summaries: readonly FinetuneSummary[], group: string, x: 'step' | 'trainSeconds'): CurveDatum[] {
  return summaries.flatMap((s) => {
    const mine = s.curves.filter((m) => methodGroup(m.method) === group);
    if (mine.length === 0) return [];
    const base = group === 'baseline' ? [] : s.curves.filter((m) => m.method === BASELINE);
    return [...base, ...mine].flatMap((m) => [
      ...m.seeds.flatMap((sd) =>
        sd.curve.map((p) => ({
          kind: 'seed' as const,
          bed: s.testBed,
          method: m.method,
          run: `${s.testBed} ${m.method} seed ${sd.seed}`,
          x: p[x],
          avg: p.avg,
        })),
      ),
      ...m.mean.map((p) => ({
        kind: 'mean' as const,
        bed: s.testBed,
        method: m.method,
        run: `${s.testBed} ${m.method}`,
        x: p[x],
        avg: p.avg,
      })),
    ]);
  });
}

/**
 * Validation curves: a row per method group (its legend names the group), a panel per test bed, one
 * colour per method within a row (GRPO dark grey throughout): thin lines per seed, thick lines with
 * points for the seed mean. x and y are shared by every panel, so rows compare at a glance.
 */
export function curveSpec(
  summaries: readonly FinetuneSummary[],
  x: 'step' | 'trainSeconds',
  title: string,
  xTitle: string,
  kv: number,
  subtitle: string,
) {
  const methods = [...new Set(summaries.flatMap((s) => s.curves.map((c) => c.method)))];
  const groups = ['baseline', ...METHOD_GROUPS.map((g) => g.name)].filter((g) =>
    methods.some((m) => methodGroup(m) === g && (g !== 'baseline' || methods.length === 1)),
  );
  const rows = groups.map((group) => {
    const values = rowValues(summaries, group, x);
    const own = methods.filter((m) => methodGroup(m) === group);
    const domain = values.some((v) => v.method === BASELINE) && group !== 'baseline' ? [BASELINE, ...own] : own;
    const color = {
      field: 'method',
      type: 'nominal',
      title: group,
      sort: domain,
      scale: {
        domain,
        range: domain.map((m, i) => (m === BASELINE ? BASELINE_COLOR : CATEGORY10[(i - (domain[0] === BASELINE ? 1 : 0)) % 10])),
      },
      legend: { symbolOpacity: 1, symbolStrokeWidth: 2.5, labelLimit: 0, titleLimit: 0 },
    };
    const xEnc = { field: 'x', type: 'quantitative', title: xTitle };
    const yEnc = { field: 'avg', type: 'quantitative', title: `validation avg@${kv}` };
    return {
      data: { values },
      facet: { column: { field: 'bed', type: 'nominal', title: 'test bed', sort: summaries.map((s) => s.testBed) } },
      spec: {
        width: 340,
        height: 200,
        layer: [
          {
            transform: [{ filter: "datum.kind === 'seed'" }],
            mark: { type: 'line', opacity: 0.25, strokeWidth: 1 },
            encoding: { x: xEnc, y: yEnc, color, detail: { field: 'run', type: 'nominal' } },
          },
          {
            transform: [{ filter: "datum.kind === 'mean'" }],
            mark: { type: 'line', point: true, strokeWidth: 2.5 },
            encoding: { x: xEnc, y: yEnc, color, detail: { field: 'run', type: 'nominal' } },
          },
        ],
      },
    };
  });
  return {
    title: { text: title, subtitle: [subtitle, 'thick: mean over seeds; thin: seeds; a row per method group, GRPO in each'] },
    vconcat: rows,
    resolve: { scale: { color: 'independent', x: 'shared', y: 'shared' }, legend: { color: 'independent' } },
  };
}
