/**
 * The gold benchmark's traces as the analyses use them, from the store alone: per trace its
 * checkpoint, V_gold(s_k), the two halves of the ceiling draw, every method's credits (and values),
 * costs and the oracle's first-error segment.
 */
import { mean } from '@rred/core';
import type { CostRecord, Store, StoredTrace } from '@rred/results-store';
import { checkpointStem } from '../common/model';
import { goldConfigSchema, type GoldConfig } from './config';
import { ORACLE_METHOD } from './first-error';
import { BASELINES, drawLayout, GOLD_METHOD, type BaselineName } from './methods';

export interface GoldTrace {
  /** Checkpoint stem (the part of the key before '/'). */
  checkpoint: string;
  key: string;
  problemId: string;
  reward: number;
  /** The completion's tokens (thinking, `</think>`, answer). [T] */
  completion: number[];
  /** Token span [start, end) of segment k = 1..K in `completion`. [K] */
  segments: { start: number; end: number }[];
  /** Tokens of segment k = 1..K. [K] */
  segmentLengths: number[];
  /** V_gold(s_k), k = 0..K. [K+1] */
  gold: number[];
  /** V_MC(s_k) of the first and of the second half of the ceiling draw (MC at ceilingSamples). [2][K+1] */
  halves: [number[], number[]];
  /** V_gold(s_k) of the first and of the second half of the gold samples (⌊n/2⌋ each; an odd n leaves its last sample out). [2][K+1] */
  goldHalves: [number[], number[]];
  /** Credit r_k per method, k = 1..K ('gold' = ΔV_gold, the baselines from the segments). [K] */
  credits: Record<string, number[]>;
  /** v̂(s_k) per method that estimates values, in probability units. [K+1] */
  values: Record<string, number[]>;
  costs: Record<string, CostRecord>;
  /** Segment k = 1..K holding the first uncorrected wrong line of the thinking; null when there is none. */
  firstError: number | null;
}

export interface GoldData {
  config: GoldConfig;
  /** Checkpoint stems in config order. */
  checkpoints: string[];
  traces: GoldTrace[];
}

const meanOver = (utilities: readonly number[][]): number[] => utilities.map(mean);

function goldTrace(s: StoredTrace, config: GoldConfig): GoldTrace {
  const K = s.segments.length;
  const credits: Record<string, number[]> = {};
  const values: Record<string, number[]> = {};
  for (const e of s.estimates) {
    if (e.exitPoint > 0) (credits[e.method] ??= new Array<number>(K).fill(NaN))[e.exitPoint - 1] = e.credit ?? NaN;
    if (e.value !== null) (values[e.method] ??= new Array<number>(K + 1).fill(NaN))[e.exitPoint] = e.value;
  }
  const segmentLengths = s.segments.map((g) => g.end - g.start);
  for (const name of Object.keys(BASELINES) as BaselineName[]) credits[name] = BASELINES[name](segmentLengths, s.trace.reward);
  const oracle = credits[ORACLE_METHOD];
  if (!oracle) throw new Error(`gold trace ${s.key} has no oracle rows`);
  delete credits[ORACLE_METHOD];
  const first = oracle.indexOf(1);
  const layout = drawLayout(config.gold.samplesPerExitPoint, config.mcSamples);
  // the ceiling draw's and the gold draw's halves, from their stored continuations (exit point k, sample index in the draw's slot)
  const halvesOf = (slot: { start: number; n: number }): [number[], number[]] => {
    const half = Math.floor(slot.n / 2);
    const parts: [number[][], number[][]] = [Array.from({ length: K + 1 }, () => []), Array.from({ length: K + 1 }, () => [])];
    for (const c of s.continuations) {
      const j = c.sample - slot.start;
      if (j >= 0 && j < 2 * half) parts[j < half ? 0 : 1][c.exitPoint].push(c.utility);
    }
    return [meanOver(parts[0]), meanOver(parts[1])];
  };
  const ceilingSlot = layout.find((d) => d.n === config.ceilingSamples && d.method !== GOLD_METHOD)!;
  const goldSlot = layout.find((d) => d.method === GOLD_METHOD)!;
  return {
    checkpoint: s.key.slice(0, s.key.indexOf('/')),
    key: s.key,
    problemId: s.trace.problemId,
    reward: s.trace.reward,
    completion: s.trace.completion,
    segments: s.segments,
    segmentLengths,
    gold: values[GOLD_METHOD],
    halves: halvesOf(ceilingSlot),
    goldHalves: halvesOf(goldSlot),
    credits,
    values,
    costs: Object.fromEntries(s.costs.map((c) => [c.method, c])),
    firstError: first < 0 ? null : first + 1,
  };
}

/** Everything the gold analyses read, traces ordered by checkpoint (config order), then key. */
export function loadGold(store: Store, runId: string): GoldData {
  const config = goldConfigSchema.parse(store.getRun(runId).config);
  const checkpoints = config.checkpoints.map(checkpointStem);
  const traces = store
    .traces(runId)
    .map((s) => goldTrace(s, config))
    .sort((a, b) => checkpoints.indexOf(a.checkpoint) - checkpoints.indexOf(b.checkpoint) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { config, checkpoints, traces };
}
