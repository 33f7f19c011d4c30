import { rredcotPresets } from '@rred/estimators';
import { scoreBatch, type ScoreJob } from '@rred/lm';
import { segmentationConfig } from '@rred/segmentation';
import { buildDatasets, DEFAULT_DATASET_SEED } from '@rred/tasks';
import { estimatorRedistribution, GrpoTrainer, parseGrpoConfig, taskGrpoSetup, taskReferences } from '@rred/training';
import { loadBenchModel } from '../experiments/src/bench/bench-data';
import { packSuffixRows } from '../packages/lm/src/suffix-rows';

async function main() {
  const { lm } = await loadBenchModel();
  const tok = lm.tokenizer;
  const { train } = buildDatasets(DEFAULT_DATASET_SEED, { train: 96, validation: 0, 'eval-easy': 0, 'eval-medium': 0, 'eval-hard': 0 });
  const records = train.filter((r) => Number(r.meta.steps) <= 4).slice(0, 8);
  let captured: ScoreJob[] = [];
  const orig = lm.scoreBatch.bind(lm);
  let scoreMs = 0;
  lm.scoreBatch = async (jobs) => { captured = jobs; const t0 = performance.now(); const r = await orig(jobs); scoreMs += performance.now() - t0; return r; };
  const hook = estimatorRedistribution({ method: 'rredcot', model: lm, segmentation: segmentationConfig({ strategy: 'hybrid', maxSegments: 10 }), tokenText: (id) => tok.tokenText(id),
    estimatorConfig: { ...rredcotPresets.dataset, terms: 'both' }, tokens: { endThink: tok.endThink, eos: tok.eos }, datasetReferences: taskReferences(records, tok, 1) });
  const trainer = new GrpoTrainer(taskGrpoSetup({ model: lm, records, redistribute: hook }), parseGrpoConfig({ seed: 1, steps: 1, promptsPerStep: 8, groupSize: 4, redistribution: 'rredcot' }, 'x'));
  let b = await trainer.generate();
  for (let i = 0; i < 3; i++) {
    const t = new GrpoTrainer(taskGrpoSetup({ model: lm, records, redistribute: hook }), parseGrpoConfig({ seed: 1, steps: 1, promptsPerStep: 8, groupSize: 4, redistribution: 'rredcot' }, 'x'));
    scoreMs = 0;
    b = await t.generate();
    console.log('hook ms', b.redistributionMs, 'of which scoreBatch', scoreMs.toFixed(1));
  }
  (await import('fs')).writeFileSync('tmp-prof/jobs.json', JSON.stringify(captured));
  console.log('redistributionMs', b.redistributionMs, 'jobs', captured.length, 'config', lm.transformer.config);
  const T = captured.map((j) => j.sequence.length);
  const suffix = captured.map((j) => j.requests.reduce((n, r) => n + r.suffix.length, 0));
  console.log('T max', Math.max(...T), 'sum T', T.reduce((a, b) => a + b), 'sum suffix', suffix.reduce((a, b) => a + b), 'requests', captured.reduce((n, j) => n + j.requests.length, 0));
  const opts: Record<string, object> = { r24: { rowTokens: 24 }, r32: { rowTokens: 32 }, r48: { rowTokens: 48 }, r64: { rowTokens: 64 }, r32s160: { rowTokens: 32, sequenceRowTokens: 160 } };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(opts).map((k) => [k, []]));
  for (let round = 0; round < 8; round++) for (const [k, o] of Object.entries(opts)) { const t0 = performance.now(); await scoreBatch(lm.transformer, captured, o); times[k].push(performance.now() - t0); }
  for (const [k, t] of Object.entries(times)) { t.sort((a, b) => a - b); console.log(k, 'min', t[0].toFixed(0), 'med', t[4].toFixed(0)); }
}
if (process.argv[2] !== "kernels") main();
async function profileKernels() {
  const { tf } = await import('@rred/engine');
  const { lm } = await loadBenchModel();
  const fs = await import('fs');
  const captured: ScoreJob[] = JSON.parse(fs.readFileSync('tmp-prof/jobs.json', 'utf8'));
  await scoreBatch(lm.transformer, captured, {});
  const agg = new Map<string, { ms: number; n: number }>();
  const info = await tf.profile(async () => { await scoreBatch(lm.transformer, captured, {}); });
  for (const k of info.kernels) {
    const t = typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    const key = `${k.name} ${k.name === 'BatchMatMul' || k.name === 'Add' || k.name === 'Softmax' ? JSON.stringify(k.inputShapes) : ''}`;
    const a = agg.get(key) ?? { ms: 0, n: 0 }; a.ms += t; a.n++; agg.set(key, a);
  }
  const rows = [...agg.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
  for (const [k, v] of rows) console.log(v.ms.toFixed(1).padStart(7), String(v.n).padStart(4), k);
  console.log('total kernels', info.kernels.length, 'sum ms', info.kernels.reduce((s, k) => s + (typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0), 0).toFixed(1));
}
if (process.argv[2] === 'kernels') profileKernels();
