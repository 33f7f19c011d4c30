/**
 * Render-from-store: on a tiny synthetic store (no model), rendering twice (the second time from a
 * reopened store, as `experiments:tables` does) gives byte-identical files, the headers name the run,
 * and the numbers in the CSVs match direct computations on the synthetic records.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pearson, Rng, spearman } from '@rred/core';
import type { ContinuationRecord } from '@rred/estimators';
import { openStore, type EstimateRecord, type Store, type TraceBundle } from '@rred/results-store';
import { continuationRows } from '../experiments/src/common/mc-records';
import { correlationConfigSchema } from '../experiments/src/correlation/config';
import { mcVarianceConfigSchema } from '../experiments/src/common/mc-variance-config';
import { renderExperiment, runToRender } from '../experiments/src/render/registry';

const backend = { backend: 'cpu', openblasThreads: null };
const N_SAMPLES = 4;
const M = 40;

function syntheticTrace(key: string, K: number, rng: Rng): Pick<TraceBundle, 'key' | 'trace' | 'segments'> {
  const thinkEnd = 3 * K;
  const completion = Array.from({ length: thinkEnd + 3 }, (_, i) => (i === thinkEnd ? 4 : 5 + (i % 20)));
  return {
    key,
    trace: {
      problemId: key,
      prompt: [1, 6, 7, 3],
      completion,
      thinkEnd,
      logprobs: completion.map(() => -rng.next()),
      entropies: completion.map(() => rng.next()),
      answer: '7',
      text: 'synthetic',
      reward: rng.next() < 0.5 ? 1 : 0,
    },
    segments: Array.from({ length: K }, (_, i) => ({ start: 3 * i, end: 3 * i + 3 })),
  };
}

function mcRecords(K: number, rng: Rng): ContinuationRecord[] {
  const out: ContinuationRecord[] = [];
  for (let k = 0; k <= K; k++) {
    for (let j = 0; j < N_SAMPLES; j++) {
      const offset = 3 * k;
      const limit = M - offset;
      const length = rng.int(1, limit);
      const truncated = length === limit && rng.next() < 0.5;
      const utility = !truncated && rng.next() < 0.2 + 0.15 * k ? 1 : 0;
      out.push({ exitPoint: k, offset, limit, length, truncated, utility, correct: utility > 0 });
    }
  }
  return out;
}

describe('render from store', () => {
  let dir: string;
  let file: string;
  let store: Store;
  let mcRun: string;
  let corrRun: string;
  const allRecords: ContinuationRecord[][] = [];
  const credits = { rredcot: [] as number[], mc: [] as number[], position: [] as number[] };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-render-'));
    file = path.join(dir, 'store.sqlite');
    store = openStore(file);
    const rng = new Rng(11);
    const mcConfig = mcVarianceConfigSchema.parse({
      problems: 3,
      mc: { samplesPerExitPoint: N_SAMPLES, maxNewTokens: M, horizon: 'completion' },
      analysis: { bootstrapResamples: 50 },
    });
    const mc = store.startRun({ experiment: 'mc-variance', config: mcConfig, backend, tags: { checkpointHash: 'f'.repeat(64) } });
    [2, 3, 4].forEach((K, t) => {
      const records = mcRecords(K, rng);
      allRecords.push(records);
      const values = Array.from(
        { length: K + 1 },
        (_, k) => records.filter((r) => r.exitPoint === k).reduce((s, r) => s + r.utility, 0) / N_SAMPLES,
      );
      const rows: EstimateRecord[] = values.map((v, k) => ({ exitPoint: k, method: 'mc', value: v, credit: k ? v - values[k - 1] : null }));
      mc.writeTraceBundle({ ...syntheticTrace(`p${t}`, K, rng), estimates: rows, continuations: continuationRows(records) });
    });
    mc.finish();
    mcRun = mc.id;

    const corrConfig = correlationConfigSchema.parse({ analysis: { bootstrapResamples: 50 } });
    const corr = store.startRun({ experiment: 'correlation', config: corrConfig, backend, tags: { sourceRun: mcRun } });
    for (let t = 0; t < 6; t++) {
      const K = 3 + (t % 3);
      const estimates: EstimateRecord[] = [];
      for (let s = 0; s < K; s++) {
        const truth = rng.normal();
        const values = {
          rredcot: truth + 0.5 * rng.normal(),
          loo: rng.normal(),
          gradient: Math.abs(rng.normal()),
          mc: truth + 0.3 * rng.normal(),
        };
        credits.rredcot.push(values.rredcot);
        credits.mc.push(values.mc);
        credits.position.push(s + 1);
        for (const [method, credit] of Object.entries(values)) {
          // two leave-one-out gaps: a row never written (trace 0) and a null credit (trace 1); both must count as non-finite
          if (method === 'loo' && t === 0 && s === 0) continue;
          estimates.push({
            exitPoint: s + 1,
            method,
            credit: method === 'loo' && t === 1 && s === 1 ? null : credit,
            value: null,
            sigma: null,
          });
        }
      }
      const costs = ['rredcot', 'loo', 'gradient', 'mc'].map((method, i) => ({
        method,
        tokensForwarded: 100 * (i + 1),
        tokensGenerated: i === 3 ? 500 : 0,
        forwardPasses: i + 1,
        wallMs: 10 * (i + 1),
      }));
      // the proxy's continuations (for the split-half ceiling)
      const proxy = mcRecords(K, rng);
      corr.writeTraceBundle({ ...syntheticTrace(`q${t}`, K, rng), estimates, costs, continuations: continuationRows(proxy) });
    }
    corr.finish();
    corrRun = corr.id;
  });

  afterAll(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-rendering from a reopened store writes byte-identical tables and plots', async () => {
    const first: string[] = [];
    for (const [exp, id] of [
      ['mc-variance', mcRun],
      ['correlation', corrRun],
    ])
      first.push(...(await renderExperiment(exp, store, id, path.join(dir, 'a', exp))));
    store.close();
    store = openStore(file);
    for (const exp of ['mc-variance', 'correlation']) {
      const id = runToRender(store, exp)!;
      await renderExperiment(exp, store, id, path.join(dir, 'b', exp));
    }
    expect(first.length).toBe(19);
    for (const f of first) {
      const other = f.replace(`${path.sep}a${path.sep}`, `${path.sep}b${path.sep}`);
      expect([f, fs.readFileSync(other).equals(fs.readFileSync(f))]).toEqual([f, true]);
    }
    const md = fs.readFileSync(path.join(dir, 'a', 'mc-variance', 'table.md'), 'utf8');
    const hash = store.getRun(mcRun).configHash.slice(0, 12);
    // the numbers first, then the provenance block: runs grouped by commit and state
    expect(md.indexOf('| samples |')).toBeLessThan(md.indexOf('## Provenance'));
    expect(md).toMatch(
      /\n- git \S+ \([^\n]*1 run \(mc-variance FINISHED, checkpoint [0-9a-f]{12}\): run [0-9a-f]{12} \(seed 1, config [0-9a-f]{12}\)\n$/,
    );
    expect(md).toContain(`run ${mcRun} (seed 1, config ${hash})`);
    expect(fs.readFileSync(path.join(dir, 'a', 'correlation', 'table.md'), 'utf8')).toContain(`run ${mcRun}`);
  });

  it('truncation.csv counts match the synthetic records; correlations.csv matches a direct Pearson', () => {
    const rows = (f: string) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split(','));
    const trunc = rows(path.join(dir, 'a', 'mc-variance', 'truncation.csv'));
    const header = trunc[0];
    const flat = allRecords.flat();
    for (const row of trunc.slice(1)) {
      const limit = Number(row[header.indexOf('limit')]);
      const cut = flat.filter((r) => r.truncated || r.length > limit - r.offset);
      expect(Number(row[header.indexOf('cut')])).toBe(cut.length);
      expect(Number(row[header.indexOf('cut_correct')])).toBe(cut.filter((r) => r.correct).length);
    }
    const corr = rows(path.join(dir, 'a', 'correlation', 'correlations.csv'));
    const h = corr[0];
    const row = corr.find((r) => r[0] === 'all' && r[1] === 'rredcot' && r[2] === 'mc')!;
    expect(Number(row[h.indexOf('pearson')])).toBeCloseTo(pearson(credits.rredcot, credits.mc), 12);
    expect(Number(row[h.indexOf('segments')])).toBe(credits.mc.length);
    const pair = (a: string, b: string) => corr.find((r) => r[0] === 'all' && r[1] === a && r[2] === b)!;
    expect(Number(row[h.indexOf('non_finite_excluded')])).toBe(0);
    expect(Number(pair('rredcot', 'loo')[h.indexOf('non_finite_excluded')])).toBe(2);
    expect(Number(pair('rredcot', 'loo')[h.indexOf('segments')])).toBe(credits.mc.length - 2);
    const costs = rows(path.join(dir, 'a', 'correlation', 'costs.csv'));
    const mcCost = costs.find((r) => r[0] === 'mc')!;
    // mc: 400 tokens forwarded (the 500 generated are inside them, not added) vs rredcot 100 → ratio 4; wall 40 vs 10 → 4
    expect(Number(mcCost[costs[0].indexOf('tokens_ratio_to_rredcot')])).toBeCloseTo(4, 12);
    expect(Number(mcCost[costs[0].indexOf('wall_ratio_to_rredcot')])).toBeCloseTo(4, 12);
    // against the proxy: the position baseline is k itself; the ceiling comes from the stored continuations; MC n = 1 was not scored
    const proxy = rows(path.join(dir, 'a', 'correlation', 'versus_proxy.csv'));
    const ph = proxy[0];
    const method = (m: string) => proxy.find((r) => r[0] === m)!;
    expect(Number(method('position')[ph.indexOf('spearman_pooled')])).toBeCloseTo(spearman(credits.position, credits.mc), 12);
    expect(Number(method('rredcot')[ph.indexOf('spearman_pooled')])).toBeCloseTo(spearman(credits.rredcot, credits.mc), 12);
    const ceiling = Number(method('ceiling')[ph.indexOf('spearman_pooled')]);
    expect(ceiling).toBeGreaterThanOrEqual(0);
    expect(ceiling).toBeLessThanOrEqual(1);
    expect(method('mc.n1')[ph.indexOf('spearman_pooled')]).toBe('NaN');
    expect(fs.readFileSync(path.join(dir, 'a', 'correlation', 'table.md'), 'utf8')).toMatch(/\| MC n = 1 \(fresh draws\) \| — \| — \|/);
  });
});
