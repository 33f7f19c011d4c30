import { parseConfig, ProgressBar, seedSchema, sum } from '@rred/core';
import { EMBEDDED_CHECKPOINT, type ScoreResult } from '@rred/lm';
import { RemoteLM, RRED_CHAT, startServer } from '@rred/remote';
import { DEFAULT_EVAL_SPLIT } from '@rred/tasks';
import { z } from 'zod';
import { checkpointHashOf } from '../common/model';
import { benchDocument, benchRng, heldOutRecords, loadBenchModel } from './bench-data';
import { evenExitPoints, scoringItems } from './lm-bench';

export const RemoteBenchConfigSchema = z
  .object({
    checkpoint: z
      .string()
      .min(1)
      .default(EMBEDDED_CHECKPOINT)
      .describe(`Model checkpoint, relative to the repo root, served in-process by rred serve's server.`),
    seed: seedSchema.default(0).describe('Seed of the trace sampling.'),
    traces: z.number().int().min(1).default(8).describe(`Traces sampled from ${DEFAULT_EVAL_SPLIT} whose exit points are scored.`),
    exitPoints: z.number().int().min(2).default(20).describe('Exit points per trace, evenly spaced over the thinking (as the lm section).'),
    maxNewTokens: z.number().int().min(1).default(120).describe('Generation limit of the trace sampling.'),
  })
  .strict();

const maxAbsDiff = (a: ScoreResult, b: ScoreResult) =>
  Math.max(...a.logprobs.flatMap((row, i) => row.map((lp, t) => Math.abs(lp - b.logprobs[i][t]))));

/**
 * Scoring cost through `rred serve` with the sglang adapter: the same jobs as the lm section (every exit
 * point of a trace + the immediate-term suffix `</think>` answer `<eos>`) scored in-process (T + Σ suffix
 * token-forwards) and through HTTP, where the cost is what the server reports it forwarded
 * (prompt_tokens − cached_tokens per input). The ratio served / in-process is the acceptance number
 * (within 10%); the log-probs must agree to 1e-4. No time is asserted.
 */
export async function runRemoteBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(RemoteBenchConfigSchema, rawConfig, 'remote bench config');
  const model = await loadBenchModel(config.checkpoint);
  const { lm } = model;
  const server = await startServer({ lm, name: 'bench', checkpointHash: checkpointHashOf(config.checkpoint), chat: RRED_CHAT });
  try {
    const remote = await RemoteLM.connect({ url: server.url, api: 'sglang' });
    const records = heldOutRecords(config.traces * 4);
    const items = await scoringItems(lm, records, { ...config, section: 'remote' }, benchRng(config.seed, 'remote').fork('traces'));
    const jobs = items.map(({ trace, sequence, suffix }) => ({
      sequence,
      requests: evenExitPoints(trace.prompt.length, trace.thinkEnd, config.exitPoints).map((exitAt) => ({ exitAt, suffix })),
    }));
    const bar = new ProgressBar('bench remote', jobs.length, 5000);
    const perTrace = [];
    for (const job of jobs) {
      const local = await lm.scoreAfterPrefixes(job.sequence, job.requests);
      const served = await remote.scoreAfterPrefixes(job.sequence, job.requests);
      perTrace.push({
        T: job.sequence.length,
        suffixTokens: sum(job.requests.map((r) => r.suffix.length)),
        inProcessTokens: local.cost.tokensForwarded,
        servedTokens: served.cost.tokensForwarded,
        maxAbsLogprobDiff: maxAbsDiff(served, local),
      });
      bar.tick(1);
    }
    const inProcess = sum(perTrace.map((t) => t.inProcessTokens));
    const servedTotal = sum(perTrace.map((t) => t.servedTokens));
    const ratio = servedTotal / inProcess;
    const maxDiff = Math.max(...perTrace.map((t) => t.maxAbsLogprobDiff));
    process.stderr.write(
      `bench remote: ${jobs.length} traces × ${config.exitPoints} exit points; in-process T + Σ suffix = ${inProcess} tokens, ` +
        `served (sglang, as the server reports) ${servedTotal}: ratio ${ratio.toFixed(4)} (bar ≤ 1.10: ${ratio <= 1.1 ? 'met' : 'MISSED'}); ` +
        `max |Δ log p| ${maxDiff.toExponential(2)}\n`,
    );
    const scoring = {
      traces: jobs.length,
      exitPoints: config.exitPoints,
      inProcessTokens: inProcess,
      servedTokens: servedTotal,
      ratio,
      withinTenPercent: ratio <= 1.1,
      maxAbsLogprobDiff: maxDiff,
      perTrace,
    };
    return benchDocument(model, config, { scoring });
  } finally {
    await server.close();
    lm.dispose();
  }
}
