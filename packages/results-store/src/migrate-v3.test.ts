import Database from 'better-sqlite3';
import * as path from 'path';
import { openStore } from './store';
import { tempDir } from '../testing';
import { expectUserError } from './testing-helpers';
import type { CostRecord, EstimateRecord, StoredTrace } from './types';
import { writeV2Store, type V2Continuation, type V2Run, type V2Trace } from './v2-fixture';

/** A trace with K segments of `len` tokens each, thinking = all of them, 2 answer tokens after. */
function trace(
  key: string,
  K: number,
  len: number,
  estimates: EstimateRecord[],
  continuations: V2Continuation[],
  costs: CostRecord[] = [],
): V2Trace {
  const thinkEnd = K * len;
  const completion = Array.from({ length: thinkEnd + 2 }, (_, i) => 5 + (i % 7));
  return {
    key,
    trace: {
      problemId: `p-${key}`,
      prompt: [1, 2],
      completion,
      thinkEnd,
      logprobs: completion.map((_, i) => -0.25 * i),
      entropies: completion.map(() => 0.5),
      answer: '7',
      text: `text ${key}`,
      reward: K % 2,
    },
    segments: Array.from({ length: K }, (_, i) => ({ start: i * len, end: (i + 1) * len })),
    estimates,
    continuations,
    costs,
  };
}

/** n continuations per exit point 0..K as truncatedMc makes them (limit ≤ 0: truncated, length 0, ζ = 0). */
function continuations(
  K: number,
  len: number,
  n: (k: number) => number,
  horizon: 'continuation' | 'completion',
  M: number,
): V2Continuation[] {
  const out: V2Continuation[] = [];
  for (let k = 0; k <= K; k++) {
    const offset = k * len;
    const limit = horizon === 'continuation' ? M : M - offset;
    for (let j = 0; j < n(k); j++) {
      if (limit <= 0) out.push({ exitPoint: k, offset, limit, length: 0, truncated: true, utility: 0 });
      else if (j % 3 === 2) out.push({ exitPoint: k, offset, limit, length: limit, truncated: true, utility: 0 });
      else out.push({ exitPoint: k, offset, limit, length: 1 + ((j + k) % limit), truncated: false, utility: j === 4 ? -0 : (j + k) % 2 });
    }
  }
  return out;
}

function mcEstimates(K: number, seed: number): EstimateRecord[] {
  const v = Array.from({ length: K + 1 }, (_, k) => ((k + seed) % 4) / 4);
  return v.map((value, k) => ({ exitPoint: k, method: 'mc', value, credit: k === 0 ? null : value - v[k - 1], sigma: null }));
}

const COSTS: CostRecord[] = [{ method: 'mc', tokensForwarded: 10, tokensGenerated: 99, forwardPasses: 3, wallMs: 1.25 }];

const RUNS: V2Run[] = [
  {
    id: 'aaaaaaaaaaaa',
    experiment: 'mc-variance',
    config: { seed: 1, mc: { horizon: 'completion', maxNewTokens: 8, samplesPerExitPoint: 3 } },
    params: { seed: '1', 'mc.horizon': 'completion' },
    tags: { checkpointHash: 'f00' },
    metrics: [
      { key: 'mean_sd', step: 1, value: 0.5 },
      { key: 'samples_for_sd_threshold', step: 0, value: NaN },
    ],
    traces: [
      // 11 samples at exit point 0: the old names run past two digits' worth of order (…09, 10)
      trace(
        'm0',
        3,
        2,
        mcEstimates(3, 0),
        continuations(3, 2, (k) => (k === 0 ? 11 : 3), 'completion', 8),
        COSTS,
      ),
      trace(
        'm1',
        0,
        2,
        mcEstimates(0, 1),
        continuations(0, 2, () => 3, 'completion', 8),
        COSTS,
      ),
      // exit point 2 sits at offset 10 > M = 8: its limit is -2 and nothing could finish
      trace(
        'm2',
        2,
        5,
        mcEstimates(2, 2),
        continuations(2, 5, () => 5, 'completion', 8),
        COSTS,
      ),
    ],
  },
  {
    id: 'bbbbbbbbbbbb',
    experiment: 'correlation',
    config: { seed: 2 },
    params: {},
    tags: { sourceRun: 'aaaaaaaaaaaa' },
    metrics: [],
    traces: [
      trace(
        'c0',
        3,
        3,
        [
          ...[0, 1, 2, 3].map((k) => ({
            exitPoint: k,
            method: 'rredcot',
            value: k / 3,
            credit: k === 0 ? null : [NaN, -0, Infinity][k - 1],
            sigma: k === 0 ? null : -Infinity,
          })),
          ...[1, 2, 3].map((k) => ({ exitPoint: k, method: 'loo', credit: 0.1 * k })),
          ...mcEstimates(3, 3),
          // look like continuation fields but are not (the old reader's regex did not match them either)
          { exitPoint: 1, method: 'mc.sample.x1', value: 3 },
          { exitPoint: 2, method: 'mc.samples.01', value: 4 },
        ],
        [],
        [{ method: 'rredcot', tokensForwarded: 50, tokensGenerated: 0, forwardPasses: 4, wallMs: 2 }, ...COSTS],
      ),
    ],
  },
  {
    id: 'cccccccccccc',
    experiment: 'mc-variance',
    config: { seed: 3, mc: { horizon: 'continuation', maxNewTokens: 5 } },
    params: {},
    tags: {},
    metrics: [],
    traces: [
      trace(
        'h0',
        1,
        4,
        mcEstimates(1, 0),
        continuations(1, 4, () => 2, 'continuation', 5),
        COSTS,
      ),
    ],
  },
];

/** What the current store must give back for a fixture trace: its inputs, with sample indices. */
function expected(t: V2Trace): StoredTrace {
  const seen = new Map<number, number>();
  const byMethodThenExit = (a: EstimateRecord, b: EstimateRecord) =>
    a.method < b.method ? -1 : a.method > b.method ? 1 : a.exitPoint - b.exitPoint;
  return {
    key: t.key,
    trace: { ...t.trace, logprobs: t.trace.logprobs ?? null, entropies: t.trace.entropies ?? null },
    checkpointHash: 'ckpt',
    segments: t.segments,
    estimates: [...t.estimates]
      .sort(byMethodThenExit)
      .map((e) => ({ exitPoint: e.exitPoint, method: e.method, value: e.value ?? null, credit: e.credit ?? null, sigma: e.sigma ?? null })),
    continuations: t.continuations.map((c) => {
      const sample = seen.get(c.exitPoint) ?? 0;
      seen.set(c.exitPoint, sample + 1);
      return {
        exitPoint: c.exitPoint,
        sample,
        offset: c.offset,
        limit: c.limit,
        length: c.length,
        truncated: c.truncated,
        utility: c.utility,
      };
    }),
    costs: [...t.costs].sort((a, b) => (a.method < b.method ? -1 : 1)),
  };
}

const UNTOUCHED = ['experiments', 'runs', 'params', 'metrics', 'tags', 'artifacts', 'traces', 'segments', 'estimator_costs'];

function dump(file: string, sql: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

function userVersion(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe('migration 3 (exit points 0..K, continuations table) of a version-2 store', () => {
  it('upgrades in place: every estimate and continuation of the old rows comes back equal', () => {
    const file = path.join(tempDir('v2'), 'store.sqlite');
    writeV2Store(file, RUNS);
    expect(userVersion(file)).toBe(2);
    const before = Object.fromEntries(UNTOUCHED.map((t) => [t, dump(file, `SELECT * FROM ${t} ORDER BY rowid`)]));
    const oldEstimates = dump(file, 'SELECT * FROM estimates ORDER BY trace_id, method, segment_idx') as Record<string, unknown>[];
    expect(oldEstimates.filter((e) => /^mc\.(sample|length|truncated)\.\d+$/.test(e.method as string))).toHaveLength(
      3 * RUNS.flatMap((r) => r.traces).reduce((n, t) => n + t.continuations.length, 0),
    );

    const store = openStore(file);
    expect(store.schemaVersion).toBe(3);
    for (const run of RUNS) expect(store.traces(run.id)).toEqual(run.traces.map(expected));
    // the flat view joins exit point k with segment k (segments[k - 1])
    const rows = store.estimateRows('aaaaaaaaaaaa', 'mc').filter((r) => r.traceKey === 'm0');
    expect(rows.map((r) => [r.exitPoint, r.start, r.end])).toEqual([
      [0, null, null],
      [1, 0, 2],
      [2, 2, 4],
      [3, 4, 6],
    ]);
    expect(store.integrityCheck()).toEqual(['ok']);
    expect(Object.keys(store.tableCounts())).toEqual(expect.arrayContaining(['continuations', 'estimates']));
    expect(store.tableCounts()).not.toHaveProperty('estimates_v3');
    store.close();

    for (const t of UNTOUCHED) expect(dump(file, `SELECT * FROM ${t} ORDER BY rowid`)).toEqual(before[t]);
    const kept = oldEstimates
      .filter((e) => !/^mc\.(sample|length|truncated)\.\d+$/.test(e.method as string))
      .map(({ segment_idx, ...rest }) => ({ trace_id: rest.trace_id, exit_point: (segment_idx as number) + 1, ...rest }));
    expect(dump(file, 'SELECT * FROM estimates ORDER BY trace_id, method, exit_point')).toEqual(kept);

    // a second open has nothing left to do, and the upgraded file takes new bundles
    const again = openStore(file);
    expect(again.traces('cccccccccccc')).toEqual(RUNS[2].traces.map(expected));
    again.close();
  });

  it('leaves the file at version 2, rows unchanged, when a continuation misses a field', () => {
    const file = path.join(tempDir('v2-broken'), 'store.sqlite');
    writeV2Store(file, [RUNS[0]]);
    const raw = new Database(file);
    raw
      .prepare(
        "DELETE FROM estimates WHERE method = 'mc.length.01' AND segment_idx = -1 AND trace_id = (SELECT id FROM traces WHERE trace_key = 'm1')",
      )
      .run();
    raw.close();
    const before = dump(file, 'SELECT * FROM estimates ORDER BY rowid');
    expectUserError(
      () => openStore(file),
      /store\.sqlite cannot be upgraded, so it was left as it was: run aaaaaaaaaaaa trace 'm1': MC continuation \(exit point 0, sample 1\) has no 'mc\.length' row/,
    );
    expect(userVersion(file)).toBe(2);
    expect(dump(file, 'SELECT * FROM estimates ORDER BY rowid')).toEqual(before);
    expect(dump(file, "SELECT name FROM sqlite_master WHERE name IN ('continuations', 'estimates_v3')")).toEqual([]);
  });

  it('refuses to guess the limits of continuations whose run config has no MC horizon', () => {
    const file = path.join(tempDir('v2-noconfig'), 'store.sqlite');
    writeV2Store(file, [{ ...RUNS[2], config: { seed: 3 } }]);
    expectUserError(() => openStore(file), /run cccccccccccc stores MC continuations but its config has no mc\.horizon/);
    expect(userVersion(file)).toBe(2);
  });
});
