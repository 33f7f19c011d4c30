/**
 * Three traces per bed beside their dataset reference (results/gold/traces.md): the text of every segment,
 * V_gold(s_k), ΔV_gold, the oracle's first-error mark, and the credit of the bed's best alignment-free
 * RREDCoT variant, so a reader sees how the model's wording differs from the reference and what the
 * estimator made of it. Rendered from the loaded gold data, the committed checkpoints' tokenizers and split files.
 */
import * as path from 'path';
import { fmt, repoRoot, toMarkdown, type Table } from '@rred/core';
import { Tokenizer, readCheckpointHeader } from '@rred/lm';
import { checkpointStem } from '../common/model';
import { bedSplit, loadSplit } from '../common/rollouts';
import type { GoldAnalysis } from './analysis';
import type { GoldData, GoldTrace } from './load';
import { parseMethodName } from './names';
import { SIGNED_POSITION } from './verdict';

/** Traces shown per bed: the first correct, the first wrong one with an error in its thinking, the second correct. */
const SHOWN = 3;

/**
 * The bed's alignment-free RREDCoT variant on canonical references with the highest within-trace ρ over all
 * traces: on the dataset's references only, or (`anySource`) on any reference source (dataset, own, both).
 */
export function bestAlignmentFree(a: GoldAnalysis, bed: string, anySource = false): string | null {
  const methods = a.checkpoints[bed]?.methods ?? {};
  const candidates = Object.keys(methods).filter((m) => {
    const p = parseMethodName(m);
    return p.family === 'rredcot' && !p.oracle && (anySource || p.refs === 'dataset') && p.rewrite === 'canonical';
  });
  const rho = (m: string) => {
    const v = methods[m].subsets.all.within.all.value;
    return Number.isFinite(v) ? v : -Infinity;
  };
  return [...candidates].sort((x, y) => rho(y) - rho(x) || (x < y ? -1 : 1))[0] ?? null;
}

/** Which traces to show: deterministic in key order. */
function pick(traces: readonly GoldTrace[]): GoldTrace[] {
  const correct = traces.filter((t) => t.reward > 0);
  const wrong = traces.find((t) => t.reward === 0 && t.firstError !== null) ?? traces.find((t) => t.reward === 0);
  return [correct[0], wrong, correct[1]].filter((t): t is GoldTrace => t !== undefined).slice(0, SHOWN);
}

/** A segment's text on one table line: newlines shown as ⏎, pipes escaped. */
const cellText = (s: string) => s.replace(/\n/g, ' ⏎ ').replace(/\|/g, '\\|').trim();

/** A credit: 3 decimals, or 2 significant digits below 0.001 (prob-space credits can be that small, and their sign matters). */
const creditText = (x: number) => (x !== 0 && Math.abs(x) < 0.001 ? x.toExponential(1) : fmt(x, 3));

/** Column title of a variant's credit: which references it read. */
const creditColumn = (variant: string) => {
  const refs = parseMethodName(variant).refs;
  return `RREDCoT credit (${refs === 'dataset' ? 'dataset reference' : refs === 'own' ? 'own samples' : 'dataset + own'})`;
};

function traceTable(t: GoldTrace, tokenizer: Tokenizer, variants: readonly string[]): Table {
  const shown = variants.filter((m) => t.credits[m]);
  return {
    columns: ['k', 'segment k (the model)', 'V_gold(s_k)', 'ΔV_gold', 'oracle', ...shown.map(creditColumn), 'signed position'],
    rows: t.gold.map((v, k) => {
      const seg = k === 0 ? null : t.segments[k - 1];
      return [
        String(k),
        seg ? cellText(tokenizer.decode(t.completion.slice(seg.start, seg.end))) : '(prompt)',
        fmt(v, 3),
        k === 0 ? '' : fmt(v - t.gold[k - 1], 3),
        k !== 0 && k === t.firstError ? 'first error' : '',
        ...shown.map((m) => (k === 0 ? '' : creditText(t.credits[m][k - 1]))),
        k === 0 ? '' : fmt(t.credits[SIGNED_POSITION][k - 1], 0),
      ];
    }),
  };
}

function bedSection(bed: string, checkpoint: string, data: GoldData, a: GoldAnalysis): string[] {
  const tokenizer = Tokenizer.fromJSON(readCheckpointHeader(path.resolve(repoRoot(), checkpoint)).tokenizer, checkpoint);
  const records = new Map(loadSplit(bedSplit(data.config.split, checkpoint), data.config.problems).map((r) => [r.id, r]));
  const onDataset = bestAlignmentFree(a, bed);
  const overall = bestAlignmentFree(a, bed, true);
  const variants = [...new Set([onDataset, overall].filter((m): m is string => m !== null))];
  const rho = (m: string) => fmt(a.checkpoints[bed].methods[m].subsets.all.within.all.value, 3);
  const out = [
    `## ${bed}`,
    '',
    variants.length === 0
      ? 'No alignment-free RREDCoT variant in this run.'
      : `RREDCoT credit: the bed's alignment-free variant with the highest ρ on the dataset's references (\`${onDataset}\`, ρ ${rho(onDataset!)})` +
        (overall !== onDataset
          ? ` and on any reference source (\`${overall}\`, ρ ${rho(overall!)})`
          : ', also the best on any reference source') +
        '.',
    '',
  ];
  for (const t of pick(data.traces.filter((x) => x.checkpoint === bed))) {
    const record = records.get(t.problemId);
    out.push(
      `### ${t.key} (ζ = ${t.reward})`,
      '',
      `Problem: ${record?.problem ?? '(not in the split file)'}`,
      '',
      'Dataset reference:',
      '',
      '```',
      record?.solution ?? '(not in the split file)',
      '```',
      '',
      toMarkdown(traceTable(t, tokenizer, variants)),
      '',
    );
  }
  return out;
}

/** The markdown of results/gold/traces.md (without its provenance line). */
export function traceExamples(data: GoldData, a: GoldAnalysis): string {
  return [
    'Each table is one T = 1 trace cut into its segments (the model wrote them); above it the dataset reference the RREDCoT ' +
      'variants read. V_gold(s_k): mean ζ of the gold continuations from exit point k; ΔV_gold: the gold credit of segment k; ' +
      'oracle: the segment holding the first uncorrected wrong line (the task knows it; no estimator reads it); signed position = (2ζ − 1)·k.',
    '',
    ...data.config.checkpoints.flatMap((c) => bedSection(checkpointStem(c), c, data, a)),
  ].join('\n');
}
