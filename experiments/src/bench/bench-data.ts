import * as fs from 'fs';
import * as path from 'path';
import { repoRoot, Rng, UserError } from '@rred/core';
import { initEngine, engineInfo } from '@rred/engine';
import { buildTrace, EMBEDDED_CHECKPOINT, readCheckpointHeader, TransformerLM, type Trace } from '@rred/lm';
import { DEFAULT_EVAL_SPLIT, promptTokens, readJsonl, verify, type TaskRecord } from '@rred/tasks';

/**
 * What the lm / estimators / training sections share: the embedded checkpoint, problems of the default
 * held-out split, traces sampled from them and their dataset references.
 */

interface BenchModel {
  lm: TransformerLM;
  /** What was measured: checkpoint path, weights hash and whether its training run had finished. */
  checkpoint: { path: string; weightsSha256: string; trainingFinishedAt: string | null };
  engine: { backend: string; openblasThreads: number | null; nativeKernels: number };
}

export async function loadBenchModel(checkpoint = EMBEDDED_CHECKPOINT): Promise<BenchModel> {
  await initEngine({ quiet: true });
  const file = path.resolve(repoRoot(), checkpoint);
  if (!fs.existsSync(file)) throw new UserError(`bench: checkpoint ${file} does not exist (run npx nx run lm:pretrain)`);
  const lm = TransformerLM.fromCheckpoint(file);
  const info = engineInfo();
  return {
    lm,
    checkpoint: { path: checkpoint, weightsSha256: readCheckpointHeader(file).weightsSha256, trainingFinishedAt: trainingFinishedAt(file) },
    engine: { backend: info.backend, openblasThreads: info.openblasThreads, nativeKernels: info.nativeKernels.length },
  };
}

/** `finishedAt` of the checkpoint's `.run.json` (null while its training is still running or absent). */
function trainingFinishedAt(ckpt: string): string | null {
  const runFile = ckpt.replace(/\.ckpt$/, '.run.json');
  try {
    const run = JSON.parse(fs.readFileSync(runFile, 'utf8')) as { finishedAt?: unknown };
    return typeof run.finishedAt === 'string' ? run.finishedAt : null;
  } catch {
    return null;
  }
}

/** The first `count` problems of the shipped held-out split file (default DEFAULT_EVAL_SPLIT). */
export function heldOutRecords(count: number, split: string = DEFAULT_EVAL_SPLIT): TaskRecord[] {
  const file = path.join(repoRoot(), 'packages', 'tasks', 'data', `${split}.jsonl`);
  const records = readJsonl(file);
  if (records.length < count) throw new UserError(`bench: ${file} has ${records.length} problems, ${count} needed`);
  return records.slice(0, count);
}

interface SampledTraces {
  traces: Trace[];
  records: TaskRecord[];
  /** Wall time of the one batched `sample` call. */
  wallMs: number;
  tokensGenerated: number;
}

/**
 * One completion per record at temperature 1, all in one batched KV-cache `sample` call (the way the
 * experiments roll out), verified into Traces.
 */
export async function sampleTraces(lm: TransformerLM, records: TaskRecord[], maxNewTokens: number, rng: Rng): Promise<SampledTraces> {
  const tok = lm.tokenizer;
  const prompts = records.map((r) => promptTokens(tok, r.problem));
  const limit = Math.min(maxNewTokens, lm.maxLength - Math.max(...prompts.map((p) => p.length)));
  const t0 = performance.now();
  const { results } = await lm.sample(prompts, { temperature: 1, topP: 1, maxNewTokens: limit, stopToken: tok.eos }, rng);
  const wallMs = performance.now() - t0;
  const traces = results.map((sample, i) => {
    const v = verify(tok.decode(sample.tokens), records[i].answer, !sample.truncated);
    return buildTrace(tok, { problemId: records[i].id, prompt: prompts[i], sample, answer: v.answer, reward: v.reward });
  });
  return { traces, records, wallMs, tokensGenerated: results.reduce((n, r) => n + r.tokens.length, 0) };
}

/** Seeded generator of a section: every draw of a bench run comes from one of these. */
export function benchRng(seed: number, section: string): Rng {
  return new Rng(seed).fork(`bench-${section}`);
}

/** Wall time of an async call. */
export async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await f();
  return [out, performance.now() - t0];
}

/** A section's document: its measurements, then what was measured (checkpoint, engine, split), its config and the time. */
export function benchDocument(model: BenchModel, config: unknown, measured: Record<string, unknown>): Record<string, unknown> {
  return {
    ...measured,
    checkpoint: model.checkpoint,
    engine: model.engine,
    split: DEFAULT_EVAL_SPLIT,
    config,
    measuredAt: new Date().toISOString(),
  };
}
