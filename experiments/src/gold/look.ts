/**
 * A look at single traces before any aggregate (docs/method.md: "look at the per-exit-point numbers of a few
 * traces first"): per exit point V_gold, per segment ΔV_gold, the oracle's first-error mark and a few
 * methods' credits, for the first failed traces with an error in the thinking and the first correct ones.
 */
import { fmt, textTable } from '@rred/core';
import type { Store } from '@rred/results-store';
import { loadGold, type GoldTrace } from './load';

const SHOWN = [
  'mc.n20',
  'rredcot.joint.full.both.log',
  'rredcot.forced.remaining.both.log',
  'rredcot.joint.bestStart.both.prob',
  'rredcot.forced.any.immediate.prob',
  'loo',
  'signedPosition',
];

function traceLook(t: GoldTrace): string {
  const shown = SHOWN.filter((m) => t.credits[m]);
  const rows = t.gold.map((v, k) => [
    String(k),
    k === 0 ? '' : String(t.segmentLengths[k - 1]),
    fmt(v),
    k === 0 ? '' : fmt(v - t.gold[k - 1]),
    k === t.firstError ? '<-- first error' : '',
    ...shown.map((m) => (k === 0 ? '' : fmt(t.credits[m][k - 1], 2))),
  ]);
  return `${t.key} (ζ = ${t.reward}, K = ${t.segmentLengths.length})\n${textTable({ columns: ['k', 'len', 'V_gold', 'ΔV_gold', 'oracle', ...shown], rows }, 'numbers')}`;
}

/** Prints `perCheckpoint` traces of every checkpoint (half failed with a first error, half correct) to stderr. */
export function lookAtTraces(store: Store, runId: string, perCheckpoint: number): void {
  if (perCheckpoint === 0) return;
  const data = loadGold(store, runId);
  for (const c of data.checkpoints) {
    const mine = data.traces.filter((t) => t.checkpoint === c);
    const failed = mine.filter((t) => t.reward === 0 && t.firstError !== null).slice(0, Math.ceil(perCheckpoint / 2));
    const correct = mine.filter((t) => t.reward > 0).slice(0, perCheckpoint - failed.length);
    for (const t of [...failed, ...correct]) process.stderr.write(`\n${traceLook(t)}\n`);
  }
}
