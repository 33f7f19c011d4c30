import { ProgressBar, type Rng, yieldToEventLoop } from '@rred/core';
import { toStoreRows, truncatedMc, type McConfig, type McExtra } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { TraceBundle } from '@rred/results-store';
import type { SegmentationConfig } from '@rred/segmentation';
import type { TaskRecord } from '@rred/tasks';
import type { ComputeContext } from '../common/experiment';
import { continuationRows } from '../common/mc-records';
import { loadDataset, type Verifier } from '../common/dataset';
import { sharedModel, type LoadedModel } from '../common/model';
import { bedSplit, continuationReward, generateRollouts, loadSplit, segmentTrace, specialTokens } from '../common/rollouts';
import { logMcSummary } from './load';
import type { McVarianceConfig } from '../common/mc-variance-config';

/** Segments one trace and runs truncated MC from each exit point; returns the complete store bundle. */
async function mcBundle(
  model: LoadedModel,
  trace: Trace,
  record: TaskRecord,
  segConfig: SegmentationConfig,
  mc: McConfig,
  rng: Rng,
  verifier?: Verifier,
): Promise<{ bundle: TraceBundle; extra: McExtra }> {
  const segments = segmentTrace(model.lm, trace, segConfig);
  const result = await truncatedMc(
    model.lm,
    trace,
    segments,
    { tokens: specialTokens(model.lm.tokenizer), reward: continuationReward(model.lm.tokenizer, record, verifier) },
    { ...mc, progress: false },
    rng,
  );
  const { rows, cost } = toStoreRows(result);
  return {
    bundle: {
      key: trace.problemId,
      trace,
      checkpointHash: model.checkpointHash,
      segments,
      estimates: rows,
      continuations: continuationRows(result.extra.records),
      costs: [
        {
          method: 'mc',
          tokensForwarded: cost.tokensForwarded,
          tokensGenerated: cost.tokensGenerated,
          forwardPasses: cost.forwardPasses,
          wallMs: cost.wallMs,
        },
      ],
    },
    extra: result.extra,
  };
}

export async function computeMcVariance({ store, run, config, rng, served, dataset }: ComputeContext<McVarianceConfig>): Promise<void> {
  const model = await sharedModel(config.checkpoint, served);
  if (model.tags) run.setTags(model.tags);
  const data = dataset ? await loadDataset(dataset, config.problems) : null;
  if (data) run.setTags(data.tags);
  const records = data?.records ?? loadSplit(bedSplit(config.split, config.checkpoint), config.problems);
  const traces = await generateRollouts(model.lm, records, { ...config.rollout, verifier: data?.verify }, rng.fork('rollouts'));
  const done = run.traceKeys();
  const bar = new ProgressBar('mc-variance: MC per trace', traces.length);
  for (let i = 0; i < traces.length; i++) {
    const trace = traces[i];
    let info = `${trace.problemId} stored earlier`;
    if (!done.has(trace.problemId)) {
      const { bundle } = await mcBundle(
        model,
        trace,
        records[i],
        config.segmentation,
        config.mc,
        rng.fork(`mc-${trace.problemId}`),
        data?.verify,
      );
      run.writeTraceBundle(bundle);
      info = `${trace.problemId} K=${bundle.segments.length}, ${Math.round(bundle.costs![0].wallMs)} ms`;
    }
    bar.tick(1, info);
    await yieldToEventLoop();
  }
  run.setTags({ checkpointHash: model.checkpointHash });
  logMcSummary(store, run);
}
