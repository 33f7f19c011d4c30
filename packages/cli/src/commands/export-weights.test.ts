import * as fs from 'fs';
import * as path from 'path';
import { openStore } from '@rred/results-store';
import { FIXED_CONTEXT, sampleBundle, tempDir } from '@rred/results-store/testing';
import { runCli } from '../cli';

async function cli(argv: string[]): Promise<string> {
  let out = '';
  await runCli(argv, { out: (t) => (out += t), env: {} });
  return out;
}

interface Line {
  key: string;
  advantage: number;
  reward: number;
  sigma: number[];
  sigma_from: string;
  sigma_config: Record<string, unknown> | null;
  coefficient: number[];
  completion_ids: number[];
  segments: [number, number][];
  think_end: number;
}

describe('rred export-weights', () => {
  const file = path.join(tempDir('export-weights'), 'store.sqlite');
  let runId = '';
  beforeAll(() => {
    const store = openStore(file);
    const run = store.startRun({
      experiment: 'grpo-batch',
      config: {},
      backend: { backend: 'cpu', openblasThreads: null },
      context: FIXED_CONTEXT,
    });
    // problem A: three completions with rewards 1, 0, 0, credits r_k = (0.2, −0.1, 0.05) and stored σ_k = (0.5, 0.3, 0.2); problem B: one completion
    [1, 0, 0].forEach((reward, i) => {
      const b = sampleBundle(`a${i}`, 3);
      b.trace = { ...b.trace, problemId: 'A', reward };
      b.estimates = b.estimates!.map((e, k) => ({ ...e, credit: [0.2, -0.1, 0.05][k], sigma: [0.5, 0.3, 0.2][k] }));
      run.writeTraceBundle(b);
    });
    const single = sampleBundle('b0', 2);
    single.trace = { ...single.trace, problemId: 'B' };
    run.writeTraceBundle(single);
    run.finish();
    runId = run.id;
    store.close();
  });

  it('writes per trace the ids, segments, the stored σ per token (--sigma stored) and A·σ·|o| with the group advantage', async () => {
    const lines = (await cli(['export-weights', '--run', runId, '--store', file, '--sigma', 'stored']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(lines.map((l) => l.key)).toEqual(['a0', 'a1', 'a2', 'b0']);
    // group A: mean 1/3, sample sd 0.57735 → A = (1 − 1/3)/0.57735 = 1.1547, (0 − 1/3)/0.57735 = −0.57735
    expect(lines[0].advantage).toBeCloseTo(1.154701, 5);
    expect(lines[1].advantage).toBeCloseTo(-0.57735, 5);
    expect(lines[3].advantage).toBe(0); // a group of one
    const a = lines[0];
    const O = a.completion_ids.length; // 8: thinking 6 (three 2-token segments), answer 2
    expect(a.segments).toEqual([
      [0, 2],
      [2, 4],
      [4, 6],
    ]);
    // thinking mass 6/8 split 0.5/0.3/0.2 over 2 tokens each; answer tokens keep 1/8 each
    const expected = [0.5, 0.5, 0.3, 0.3, 0.2, 0.2].map((s) => ((6 / 8) * s) / 2).concat([1 / 8, 1 / 8]);
    a.sigma.forEach((s, t) => expect(s).toBeCloseTo(expected[t], 12));
    expect(a.sigma.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    a.coefficient.forEach((c, t) => expect(c).toBeCloseTo(a.advantage * a.sigma[t] * O, 12));
    expect([a.sigma_from, a.sigma_config]).toEqual(['stored', null]);
  });

  it('by default exports the σ a GRPO run trains with: from the stored credits and A_i under the σ config, sign-aligned', async () => {
    const cfgFile = path.join(path.dirname(file), 'sigma-l1.json');
    fs.writeFileSync(cfgFile, JSON.stringify({ normalization: 'L1', credits: 'raw' }));
    const read = async (...extra: string[]) =>
      (await cli(['export-weights', '--run', runId, '--store', file, ...extra]))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
    const l1 = await read('--sigma-config', cfgFile);
    // signed L1 over raw credits: σ_k = c_k / Σ|c| with c = sign(A_i)·r (aligned); thinking mass 6/8 over 2 tokens per segment
    const byHand = (sign: number) => [0.2, 0.2, -0.1, -0.1, 0.05, 0.05].map((r) => ((6 / 8) * sign * r) / 0.35 / 2).concat([1 / 8, 1 / 8]);
    l1[0].sigma.forEach((s, t) => expect(s).toBeCloseTo(byHand(1)[t], 12)); // A > 0
    l1[1].sigma.forEach((s, t) => expect(s).toBeCloseTo(byHand(-1)[t], 12)); // A < 0: the blamed segment's sign flips
    expect(l1[0].sigma_from).toBe('trained');
    expect(l1[0].sigma_config).toMatchObject({ signHandling: 'aligned', normalization: 'L1', credits: 'raw' });
    // A = 0 (a group of one): uniform 1/|o|, as the trainer
    l1[3].sigma.forEach((s) => expect(s).toBeCloseTo(1 / l1[3].completion_ids.length, 15));
    // the default config: the trainer's (softmax over standardized credits, length prior): Σσ_t = 1, largest weight on the largest aligned credit
    const dflt = await read();
    expect(dflt[0].sigma_config).toMatchObject({
      signHandling: 'aligned',
      normalization: 'softmax',
      credits: 'standardized',
      tau: 1,
      lengthPrior: true,
    });
    for (const line of dflt.slice(0, 3)) expect(line.sigma.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    expect(dflt[0].sigma[0]).toBeGreaterThan(dflt[0].sigma[2]);
    expect(dflt[1].sigma[2]).toBeGreaterThan(dflt[1].sigma[0]);
    await expect(read('--sigma', 'both')).rejects.toThrow(/^export-weights: --sigma both: expected trained or stored$/);
    await expect(read('--sigma', 'stored', '--sigma-config', cfgFile)).rejects.toThrow(/--sigma-config applies to --sigma trained only/);
    fs.writeFileSync(cfgFile, JSON.stringify({ normalization: 'L1' }));
    await expect(read('--sigma-config', cfgFile)).rejects.toThrow(/credits 'standardized' needs normalization 'softmax'/);
  });

  it('--scale none is r − mean; --out writes the file; bad flags are one-line errors', async () => {
    const out = path.join(path.dirname(file), 'w.jsonl');
    await cli(['export-weights', '--run', runId, '--store', file, '--scale', 'none', '--out', out]);
    const first = JSON.parse(fs.readFileSync(out, 'utf8').split('\n')[0]) as Line;
    expect(first.advantage).toBeCloseTo(2 / 3, 12);
    await expect(cli(['export-weights', '--store', file])).rejects.toThrow(/--run ID is required/);
    await expect(cli(['export-weights', '--run', runId, '--store', file, '--format', 'csv'])).rejects.toThrow(
      /--format csv: expected jsonl/,
    );
    await expect(cli(['export-weights', '--run', runId, '--store', file, '--method', 'bogus'])).rejects.toThrow(
      `export-weights: --method bogus: unknown method for run ${runId}, which stores estimates of rredcot`,
    );
    await expect(cli(['export-weights', '--run', runId, '--store', file, '--out', '/proc/nope/x'])).rejects.toThrow(
      /^export-weights: --out \/proc\/nope\/x: its directory \/proc\/nope does not exist$/,
    );
  });

  it('refuses a run that did not finish (KILLED, FAILED, running) unless --allow-partial; each record states the status', async () => {
    const store = openStore(file);
    const run = store.startRun({
      experiment: 'grpo-batch',
      config: {},
      backend: { backend: 'cpu', openblasThreads: null },
      context: FIXED_CONTEXT,
    });
    run.writeTraceBundle(sampleBundle('k0', 2));
    run.kill('SIGINT');
    store.close();
    await expect(cli(['export-weights', '--run', run.id, '--store', file])).rejects.toThrow(
      `export-weights: run ${run.id} (KILLED) did not finish, so its traces are partial; pass --allow-partial to export anyway`,
    );
    const lines = (await cli(['export-weights', '--run', run.id, '--store', file, '--allow-partial'])).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { run_status: string }).run_status)).toEqual(['KILLED']);
    const out = path.join(path.dirname(file), 'partial.jsonl');
    expect(await cli(['export-weights', '--run', run.id, '--store', file, '--allow-partial', '--out', out])).toBe(
      `wrote 1 traces of run ${run.id} to ${out}; PARTIAL (--allow-partial): ${run.id} (KILLED) did not finish\n`,
    );
  });
});
