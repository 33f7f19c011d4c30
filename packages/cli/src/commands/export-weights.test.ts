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
    // problem A: three completions with rewards 1, 0, 0 and σ_k = (0.5, 0.3, 0.2); problem B: one completion
    [1, 0, 0].forEach((reward, i) => {
      const b = sampleBundle(`a${i}`, 3);
      b.trace = { ...b.trace, problemId: 'A', reward };
      b.estimates = b.estimates!.map((e, k) => ({ ...e, sigma: [0.5, 0.3, 0.2][k] }));
      run.writeTraceBundle(b);
    });
    const single = sampleBundle('b0', 2);
    single.trace = { ...single.trace, problemId: 'B' };
    run.writeTraceBundle(single);
    run.finish();
    runId = run.id;
    store.close();
  });

  it('writes per trace the ids, segments, σ per token and A·σ·|o| with the group advantage', async () => {
    const lines = (await cli(['export-weights', '--run', runId, '--store', file]))
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
