/**
 * Experiments on a served model: mc-variance through `rred serve`'s server gives the same
 * tables as in-process, on both adapters, apart from the provenance lines; a server killed in the middle
 * leaves a FAILED run with whole trace bundles only, and resuming it gives exactly the uninterrupted rows.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Rng, UserError } from '@rred/core';
import { initEngine } from '@rred/engine';
import { checkpointHash, createTransformer, EMBEDDED_CHECKPOINT, EMBEDDED_CHECKPOINTS, saveCheckpoint, TransformerLM } from '@rred/lm';
import { RRED_CHAT, startServer, type RunningServer } from '@rred/remote';
import { startFaultProxy } from '@rred/remote/testing';
import { openStore, withRun, type StoredTrace } from '@rred/results-store';
import { computeInto, runExperiment } from '../experiments/src/common/run-command';
import { goldExperiment } from '../experiments/src/gold/definition';
import { mcVarianceExperiment } from '../experiments/src/mc-variance/definition';

const CONFIG = [
  '--problems',
  '3',
  '--rollout.maxNewTokens',
  '24',
  '--mc.samplesPerExitPoint',
  '3',
  '--mc.maxNewTokens',
  '24',
  '--segmentation',
  '{"strategy":"entropy","maxSegments":4}', // cuts at the highest entropies: the served entropies must be exact
  '--analysis.bootstrapResamples',
  '20',
];

/** A rendered file without its provenance lines (markdown `- git ...` groups of runs, CSV `# run ...`). */
function withoutProvenance(file: string): string {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !/^(- git|# run) [0-9a-f]+/.test(l))
    .join('\n');
}

/** A stored trace without what may differ between runs of the same draws: wall times. */
function rowsOf(t: StoredTrace) {
  return { ...t, costs: t.costs.map(({ wallMs: _w, tokensForwarded: _f, forwardPasses: _p, ...c }) => c) };
}

describe('experiments on a served model', () => {
  let dir: string;
  let ckpt: string;
  let served: TransformerLM;
  let server: RunningServer;
  const runs: Record<string, { store: string; out: string; runId: string }> = {};

  beforeAll(async () => {
    await initEngine({ quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-remote-exp-'));
    // a tiny random model over the embedded model's tokenizer (so the task's prompts encode)
    const embedded = TransformerLM.fromCheckpoint(path.resolve(__dirname, '..', EMBEDDED_CHECKPOINT));
    const tokenizer = embedded.tokenizer;
    embedded.dispose();
    const transformer = createTransformer(
      { vocabSize: tokenizer.vocabSize, contextLength: 160, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 },
      new Rng(4),
    );
    ckpt = path.join(dir, 'tiny.ckpt');
    saveCheckpoint(ckpt, { tokenizer, transformer });
    transformer.dispose();
    served = TransformerLM.fromCheckpoint(ckpt);
    server = await startServer({ lm: served, name: 'tiny', checkpointHash: checkpointHash(ckpt), chat: RRED_CHAT });
    for (const [name, extra] of [
      ['local', []],
      ['sglang', ['--model', server.url]],
      ['openai', ['--model', server.url, '--model-api', 'openai']],
    ] as const) {
      const store = path.join(dir, `${name}.sqlite`);
      const out = path.join(dir, `${name}-out`);
      const { runId } = await runExperiment(mcVarianceExperiment, [
        ...CONFIG,
        '--checkpoint',
        ckpt,
        '--store',
        store,
        '--out',
        out,
        ...extra,
      ]);
      runs[name] = { store, out, runId };
    }
  });
  afterAll(async () => {
    await server.close();
    served.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(['sglang', 'openai'])('%s: the same tables as in-process, byte for byte apart from the provenance lines', (api) => {
    const files = fs.readdirSync(runs.local.out).filter((f) => /\.(md|csv)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(fs.readdirSync(runs[api].out).filter((f) => /\.(md|csv)$/.test(f))).toEqual(files);
    for (const f of files) expect(withoutProvenance(path.join(runs[api].out, f))).toBe(withoutProvenance(path.join(runs.local.out, f)));
  });

  it.each(['sglang', 'openai'])(
    '%s: the same stored traces, segments, MC continuations and estimates; the run records the server',
    (api) => {
      const local = openStore(runs.local.store);
      const remote = openStore(runs[api].store);
      try {
        const a = local.traces(runs.local.runId).map(rowsOf);
        expect(a).toHaveLength(3);
        expect(a.every((t) => t.segments.length === 4)).toBe(true);
        expect(remote.traces(runs[api].runId).map(rowsOf)).toEqual(a);
        const tags = remote.getRun(runs[api].runId).tags;
        expect(tags).toMatchObject({
          'model.url': server.url,
          'model.api': api,
          'model.name': 'tiny',
          checkpointHash: local.getRun(runs.local.runId).tags.checkpointHash,
        });
      } finally {
        local.close();
        remote.close();
      }
    },
  );

  it('a server killed mid-experiment: a one-line error, a FAILED run with whole bundles; the resumed run has exactly the uninterrupted rows', async () => {
    // requests: 1 = the rollouts, 2 = MC of trace 1, 3 = MC of trace 2 (killed)
    const proxy = await startFaultProxy(server.url, (route, n) => (route === 'POST /generate' && n === 3 ? { kind: 'kill' } : null));
    const store = path.join(dir, 'killed.sqlite');
    const args = [...CONFIG, '--checkpoint', ckpt, '--store', store, '--out', path.join(dir, 'killed-out'), '--model', proxy.url];
    const err = await runExperiment(mcVarianceExperiment, args).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/generate: failed after 4 attempts; last: connection failed/);
    const s = openStore(store);
    try {
      const [failed] = s.listRuns();
      expect(failed.status).toBe('FAILED');
      const partial = s.traces(failed.id);
      expect(partial.map((t) => t.key)).toHaveLength(1);
      // what was written is whole: the first trace's bundle equals the uninterrupted run's
      const local = openStore(runs.local.store);
      const full = local.traces(runs.local.runId).map(rowsOf);
      local.close();
      expect(rowsOf(partial[0])).toEqual(full[0]);
      // restart (a fresh server address) and resume the same run
      const detail = s.getRun(failed.id);
      await withRun(s, { resume: failed.id }, (run) =>
        computeInto(
          mcVarianceExperiment,
          s,
          run,
          detail.config as Record<string, unknown>,
          { backend: 'cpu', openblasThreads: null },
          {
            url: server.url,
            api: 'sglang',
          },
        ),
      );
      expect(s.getRun(failed.id).status).toBe('FINISHED');
      expect(s.traces(failed.id).map(rowsOf)).toEqual(full);
    } finally {
      s.close();
      await proxy.close();
    }
  });

  it.each([
    ['a truncated JSON body', { kind: 'truncate' } as const, /malformed response, not JSON/],
    [
      'a wrong (out-of-vocabulary) token id',
      { kind: 'rewrite', edit: badToken } as const,
      /\/generate: impossible meta_info\.output_token_logprobs \(token ids\) for sampled prompt 0 at position \d+: token id 9999, outside the vocabulary/,
    ],
  ])('%s mid-experiment: a one-line error, a FAILED run holding only whole bundles', async (_what, fault, message) => {
    const proxy = await startFaultProxy(server.url, (route, n) => (route === 'POST /generate' && n === 3 ? fault : null));
    const store = path.join(dir, `fault-${fault.kind}.sqlite`);
    const args = [...CONFIG, '--checkpoint', ckpt, '--store', store, '--out', path.join(dir, 'fault-out'), '--model', proxy.url];
    const err = await runExperiment(mcVarianceExperiment, args).catch((e) => e);
    await proxy.close();
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
    const s = openStore(store);
    const local = openStore(runs.local.store);
    try {
      const [failed] = s.listRuns();
      expect(failed.status).toBe('FAILED');
      expect(s.traces(failed.id).map(rowsOf)).toEqual(local.traces(runs.local.runId).map(rowsOf).slice(0, 1));
    } finally {
      s.close();
      local.close();
    }
  });

  it('HTTP 500 three times mid-experiment: retried with backoff, the run finishes with the uninterrupted rows', async () => {
    const proxy = await startFaultProxy(server.url, (route, n) =>
      route === 'POST /generate' && n >= 2 && n <= 4 ? { kind: 'status', status: 500 } : null,
    );
    const store = path.join(dir, 'retried.sqlite');
    const args = [...CONFIG, '--checkpoint', ckpt, '--store', store, '--out', path.join(dir, 'retried-out'), '--model', proxy.url];
    const { runId } = await runExperiment(mcVarianceExperiment, args);
    await proxy.close();
    expect(proxy.counts.get('POST /generate')).toBe(3 + 3 + 1); // rollouts, 3 faults + the retry that passed, 2 more traces
    const s = openStore(store);
    const local = openStore(runs.local.store);
    try {
      expect(s.getRun(runId).status).toBe('FINISHED');
      expect(s.traces(runId).map(rowsOf)).toEqual(local.traces(runs.local.runId).map(rowsOf));
    } finally {
      s.close();
      local.close();
    }
  });

  it('--dataset FILE --verifier MODULE on a served model: problems from the JSONL, ζ from the plugged-in verifier, recorded on the run', async () => {
    const data = path.join(dir, 'real.jsonl');
    const rows = [
      { id: 'p1', problem: 'a=1+2;?a', solution: 'a=1+2=3', answer: '3' },
      { id: 'p2', problem: 'a=2*3;b=a+1;?b', solution: 'a=2*3=6\nb=6+1=7', answer: '7' },
    ];
    fs.writeFileSync(data, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // a stand-in "math checker" that, unlike the task verifier, also rewards a truncated completion
    const verifier = path.join(dir, 'checker.js');
    fs.writeFileSync(verifier, 'exports.verify = (text, answer) => ({ reward: text.length > 0 ? 1 : 0, answer });\n');
    const store = path.join(dir, 'dataset.sqlite');
    const common = [...CONFIG.slice(2), '--problems', '2', '--checkpoint', ckpt, '--dataset', data]; // CONFIG starts with --problems 3
    const { runId } = await runExperiment(mcVarianceExperiment, [
      ...common,
      '--store',
      store,
      '--out',
      path.join(dir, 'dataset-out'),
      '--model',
      server.url,
      '--verifier',
      verifier,
    ]);
    const s = openStore(store);
    try {
      const traces = s.traces(runId);
      expect(traces.map((t) => t.key)).toEqual(['p1', 'p2']);
      expect(traces.map((t) => [t.trace.reward, t.trace.answer])).toEqual([
        [1, '3'],
        [1, '7'],
      ]);
      expect(s.getRun(runId).tags).toMatchObject({ 'dataset.file': data, 'dataset.verifier': verifier });
    } finally {
      s.close();
    }
    const bad = path.join(dir, 'bad.js');
    fs.writeFileSync(bad, 'exports.verify = () => ({ reward: 2 });\n');
    const args = [...common, '--store', path.join(dir, 'bad.sqlite'), '--out', path.join(dir, 'bad-out'), '--verifier', bad];
    const err = await runExperiment(mcVarianceExperiment, args).catch((e) => e);
    expect((err as Error).message).toMatch(
      /--verifier .*bad\.js: verify\(\) returned reward 2 for answer '3', expected a number in \[0, 1\]/,
    );
  });

  it('gold on a served model (the "assumptions met" checkpoint): the in-process rows, gradient attribution left out (it needs the weights)', async () => {
    const bed = path.resolve(__dirname, '..', EMBEDDED_CHECKPOINTS.assumptionsMet.checkpoint);
    const bedLm = TransformerLM.fromCheckpoint(bed);
    const bedServer = await startServer({ lm: bedLm, name: 'assumptions-met', checkpointHash: checkpointHash(bed), chat: RRED_CHAT });
    const small = [
      '--problems',
      '12',
      '--traces',
      '{"correct":1,"wrong":1}',
      '--gold',
      '{"samplesPerExitPoint":6,"maxNewTokens":120,"horizon":"completion","temperature":1,"topP":1,"batchSize":64}',
      '--mcSamples',
      '[1,2]',
      '--ceilingSamples',
      '2',
      '--segmentation',
      '{"strategy":"hybrid","maxSegments":3}',
      '--analysis.bootstrapResamples',
      '20',
      '--look',
      '1',
      '--checkpoints',
      JSON.stringify([bed]),
    ];
    const run = async (name: string, extra: string[]) => {
      const store = path.join(dir, `gold-${name}.sqlite`);
      const { runId } = await runExperiment(goldExperiment, [
        ...small,
        '--store',
        store,
        '--out',
        path.join(dir, `gold-${name}`),
        ...extra,
      ]);
      const s = openStore(store);
      try {
        return s.traces(runId).map((t) => ({ ...rowsOf(t), estimates: t.estimates.filter((e) => e.method !== 'gradient'), costs: [] }));
      } finally {
        s.close();
      }
    };
    try {
      const local = await run('local', []);
      expect(local.map((t) => t.trace.reward).sort()).toEqual([0, 1]);
      expect(await run('served', ['--model', bedServer.url])).toEqual(local);
      const two = ['--checkpoints', JSON.stringify([bed, path.resolve(__dirname, '..', EMBEDDED_CHECKPOINT)]), '--model', bedServer.url];
      await expect(runExperiment(goldExperiment, [...small.slice(0, -2), ...two])).rejects.toThrow(
        /gold on a served model takes one checkpoint/,
      );
    } finally {
      await bedServer.close();
      bedLm.dispose();
    }
  });
});

/** Rewrites the first sampled token of an SGLang /generate answer to an id outside the vocabulary. */
function badToken(body: unknown): unknown {
  (body as { meta_info: { output_token_logprobs: [number, number, string][] } }[])[0].meta_info.output_token_logprobs[0][1] = 9999;
  return body;
}
