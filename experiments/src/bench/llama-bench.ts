import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseConfig, repoRoot, seedSchema, sum } from '@rred/core';
import { exportGguf, LlamaLM } from '@rred/llama';
import { EMBEDDED_CHECKPOINT, type SampleOptions } from '@rred/lm';
import { DEFAULT_EVAL_SPLIT } from '@rred/tasks';
import { z } from 'zod';
import { benchDocument, benchRng, heldOutRecords, loadBenchModel, timed } from './bench-data';
import { evenExitPoints, scoringItems } from './lm-bench';

export const LlamaBenchConfigSchema = z
  .object({
    checkpoint: z
      .string()
      .min(1)
      .default(EMBEDDED_CHECKPOINT)
      .describe('Model checkpoint, relative to the repo root, run in-process and exported to GGUF for llama.cpp.'),
    seed: seedSchema.default(0).describe('Seed of the trace sampling and of both samplers.'),
    traces: z.number().int().min(1).default(8).describe(`Traces sampled from ${DEFAULT_EVAL_SPLIT} whose exit points are scored.`),
    exitPoints: z.number().int().min(2).default(20).describe('Exit points per trace, evenly spaced over the thinking (as the lm section).'),
    samplingPrompts: z.number().int().min(1).default(16).describe('Prompts sampled from, one row each.'),
    maxNewTokens: z.number().int().min(1).default(120).describe('Generation limit of the trace sampling and of the sampling measure.'),
    threads: z
      .array(z.number().int().min(1))
      .min(1)
      .default([1, 2])
      .describe('llama.cpp context thread counts tried; each measure reports its best (single-token decodes and long prefills differ).'),
  })
  .strict();

type Measure = { tokens: number; ms: number; tokensPerSecond: number };
const measure = (tokens: number, ms: number): Measure => ({ tokens, ms, tokensPerSecond: (tokens / ms) * 1000 });

/**
 * llama.cpp (node-llama-cpp, the exported checkpoint as GGUF, F32 KV cache) against the in-process engine
 * on the same work: scoring the lm section's jobs (every exit point + `</think>` answer `<eos>`; tokens =
 * T + Σ|suffix| on both) and sampling one row per prompt (tokens = generated). Each llama.cpp measure is
 * reported at its best thread count. No time is asserted.
 */
export async function runLlamaBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(LlamaBenchConfigSchema, rawConfig, 'llama bench config');
  const model = await loadBenchModel(config.checkpoint);
  const { lm } = model;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-bench-gguf-'));
  try {
    const { out: gguf } = await exportGguf(path.resolve(repoRoot(), config.checkpoint), path.join(dir, 'model.gguf'));
    const rng = benchRng(config.seed, 'llama');
    const items = await scoringItems(lm, heldOutRecords(config.traces * 4), { ...config, section: 'llama' }, rng.fork('traces'));
    const jobs = items.map(({ trace, sequence, suffix }) => ({
      sequence,
      requests: evenExitPoints(trace.prompt.length, trace.thinkEnd, config.exitPoints).map((exitAt) => ({ exitAt, suffix })),
    }));
    const prompts = heldOutRecords(config.samplingPrompts).map((r) => [
      lm.tokenizer.bos,
      ...lm.tokenizer.encode(r.problem),
      lm.tokenizer.think,
    ]);
    const options: SampleOptions = { temperature: 1, topP: 1, maxNewTokens: config.maxNewTokens, stopToken: lm.tokenizer.eos };
    const score = async (m: { scoreBatch: typeof lm.scoreBatch }) => {
      const [results, ms] = await timed(() => m.scoreBatch(jobs));
      return measure(sum(results.map((r) => r.cost.tokensForwarded)), ms);
    };
    const draw = async (m: { sample: typeof lm.sample }) => {
      const [out, ms] = await timed(() => m.sample(prompts, options, rng.fork('sampling')));
      return measure(out.cost.tokensGenerated, ms);
    };
    await score(lm); // warm-up
    const inProcess = { scoring: await score(lm), sampling: await draw(lm) };
    const perThreads: { threads: number; scoring: Measure; sampling: Measure }[] = [];
    for (const threads of config.threads) {
      const llama = await LlamaLM.load({ modelPath: gguf, threads });
      try {
        await score(llama); // warm-up
        perThreads.push({ threads, scoring: await score(llama), sampling: await draw(llama) });
      } finally {
        await llama.dispose();
      }
    }
    const best = (k: 'scoring' | 'sampling') => perThreads.reduce((a, b) => (b[k].tokensPerSecond > a[k].tokensPerSecond ? b : a));
    const line = (k: 'scoring' | 'sampling') => {
      const b = best(k);
      const ratio = inProcess[k].ms / b[k].ms;
      process.stderr.write(
        `bench llama: ${k} ${Math.round(b[k].tokensPerSecond)} tokens/s on llama.cpp (best at ${b.threads} thread(s)) vs ` +
          `${Math.round(inProcess[k].tokensPerSecond)} in-process; in-process time / llama.cpp time ${ratio.toFixed(2)}\n`,
      );
      return { llamaThreads: b.threads, llama: b[k], inProcess: inProcess[k], inProcessTimeRatio: ratio };
    };
    return benchDocument(model, config, { scoring: line('scoring'), sampling: line('sampling'), perThreads });
  } finally {
    lm.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
