import { toMarkdown } from '@rred/core';
import type { ScalingPoint } from './scaling-bench';

/** What rendering reads of a scaling document (scaling-bench.ts). */
interface ScalingDocument {
  exponents: Record<string, number>;
  /** Absent in documents from before the cost model. */
  predictedExponents?: Record<string, number>;
  linearWithin02?: Record<string, boolean>;
  vsT: ScalingPoint[];
  vsK: ScalingPoint[];
}

const MEASURES = [
  ['rredcotCached', 'RREDCoT from the sampler cache'],
  ['rredcotScratch', 'RREDCoT from scratch'],
  ['mc', 'MC at its best'],
  ['train', 'training step'],
] as const;

/** results/bench/scaling.md: wall ms and tokens forwarded per point of both sweeps, then the fitted exponents. */
export function scalingMarkdown(doc: ScalingDocument): string {
  const rows = [...doc.vsT.map((p) => ['T', p] as const), ...doc.vsK.map((p) => ['K', p] as const)].map(([sweep, p]) => [
    sweep,
    p.T,
    p.K,
    ...MEASURES.flatMap(([m]) => [p[`${m}Ms`].toFixed(1), p[`${m}Tokens`]]),
  ]);
  const table = toMarkdown({
    columns: ['sweep', 'T', 'K', ...MEASURES.flatMap(([, label]) => [`${label} ms`, 'tokens'])],
    rows,
  });
  const predicted = doc.predictedExponents ?? {};
  const linear = doc.linearWithin02 ?? {};
  const fits = toMarkdown({
    columns: ['exponent', 'measured', 'cost model', 'linear by the cost model: measured within 0.2 of 1'],
    rows: Object.entries(doc.exponents).map(([k, v]) => [
      k,
      v.toFixed(3),
      k in predicted ? predicted[k].toFixed(3) : '—',
      k in linear ? (linear[k] ? 'yes' : 'no') : '—',
    ]),
  });
  return (
    `# How cost grows (bench section scaling)\n\n${table}\nFitted exponents b of wall ≈ a·x^b (least squares on log-log; \`exponentDefinition\` in scaling.json), ` +
    `beside the same fit of the cost model's FLOPs (\`costModel\`; token rows: forwarded tokens):\n\n${fits}`
  );
}

/** results/bench/scaling.vl.json: wall ms against T (fixed K) and against K (fixed T), log-log, one line per measure. */
export function scalingPlotSpec(doc: ScalingDocument): Record<string, unknown> {
  const values = [
    ...doc.vsT.flatMap((p) => MEASURES.map(([m, label]) => ({ sweep: 'T (fixed K)', x: p.T, ms: p[`${m}Ms`], measure: label }))),
    ...doc.vsK.flatMap((p) => MEASURES.map(([m, label]) => ({ sweep: 'K (fixed T)', x: p.K, ms: p[`${m}Ms`], measure: label }))),
  ];
  return {
    title: 'Wall time per call vs trace length T and segments K (tiny random model)',
    data: { values },
    facet: { column: { field: 'sweep', type: 'nominal', title: null } },
    spec: {
      width: 260,
      height: 220,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'x', type: 'quantitative', scale: { type: 'log' }, title: 'T or K' },
        y: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'wall ms (median)' },
        color: { field: 'measure', type: 'nominal', title: null },
      },
    },
    resolve: { scale: { x: 'independent' } },
  };
}
