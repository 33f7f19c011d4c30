import { mean, ProgressBar, repoRoot, UserError } from '@rred/core';
import { gradientAttribution, leaveOneOut, rredcot, toStoreRows, type EstimatorResult, type Reference } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { CostRecord, EstimateRecord } from '@rred/results-store';
import { readJsonl, referenceTokens, type TaskRecord } from '@rred/tasks';
import * as path from 'path';
import type { ComputeContext } from '../common/experiment';
import { yieldToEventLoop } from '../common/yield';
import type { LoadedModel } from '../common/model';
import { generateRollouts, loadSplit, specialTokens } from '../common/rollouts';
import { segmentTrace, sharedModel } from '../mc-variance/compute';
import type { CorrelationConfig } from './config';
import { logCorrelationSummary } from './load';
import { mcValuesWithReuse } from './mc-reuse';
import { findSourceRun, loadSource, type SourceItem } from './source';

/** Whether every reference suffix (u* </think> y* <eos>) fits after the trace's last exit point. */
export function referencesFit(trace: Trace, refs: readonly Reference[], maxLength: number): boolean {
  const longest = Math.max(0, ...refs.map((r) => r.solution.length + r.answer.length + 2));
  return trace.prompt.length + trace.thinkEnd + longest <= maxLength;
}

function costOf(method: string, result: EstimatorResult<unknown>): CostRecord {
  const c = result.cost;
  return { method, tokensForwarded: c.tokensForwarded, tokensGenerated: c.tokensGenerated, forwardPasses: c.forwardPasses, wallMs: c.wallMs };
}

/** Every problem record of a split file, by id (stored traces name their problem by id). */
function recordsById(split: string): Map<string, TaskRecord> {
  const all = readJsonl(path.join(repoRoot(), 'packages', 'tasks', 'data', `${split}.jsonl`));
  return new Map(all.map((r) => [r.id, r]));
}

export async function computeCorrelation({ store, run, config, rng }: ComputeContext<CorrelationConfig>): Promise<void> {
  const model = await sharedModel(config.checkpoint);
  const sourceId = findSourceRun(store, config, model.checkpointHash);
  let items: SourceItem[];
  let records: Map<string, TaskRecord>;
  let reuseSegments = false;
  if (sourceId) {
    const source = loadSource(store, sourceId, config);
    items = source.items;
    records = recordsById(source.config.split);
    reuseSegments = source.sameSegmentation;
    run.setTags({ sourceRun: sourceId, reusedSegments: String(source.sameSegmentation), reusedMc: String(source.sameMc) });
    process.stderr.write(`correlation: reusing ${items.length} traces of mc-variance run ${sourceId} (segments ${source.sameSegmentation ? 'reused' : 're-cut'}, MC ${source.sameMc ? 'reused where exit points match' : 'resampled'})\n`);
  } else {
    if (config.source.onMissing === 'error') {
      throw new UserError(
        `correlation: no FINISHED mc-variance run for checkpoint ${model.checkpointHash.slice(0, 12)} (source.mcRun '${config.source.mcRun}', source.onMissing 'error'); ` +
          'run `npx nx run experiments:mc-variance` first',
      );
    }
    const list = loadSplit(config.generate.split, config.generate.problems);
    records = new Map(list.map((r) => [r.id, r]));
    const traces: Trace[] = await generateRollouts(model.lm, list, config.generate.rollout, rng.fork('rollouts'));
    items = traces.map((trace) => ({ trace, segments: [], mcRecords: null, mcCost: null }));
    run.setTags({ sourceRun: 'none (generated)' });
    process.stderr.write(`correlation: no FINISHED mc-variance run for checkpoint ${model.checkpointHash.slice(0, 12)}; generated ${items.length} traces\n`);
  }
  if (config.maxTraces !== null) items = items.slice(0, config.maxTraces);
  run.setTags({ checkpointHash: model.checkpointHash });
  const tokens = specialTokens(model.lm.tokenizer);
  const done = run.traceKeys();
  const skipped: string[] = [];
  const referenceCounts: number[] = [];
  const bar = new ProgressBar('correlation: estimators per trace', items.length);
  for (const item of items) {
    const { trace } = item;
    if (done.has(trace.problemId)) {
      bar.tick(1, `${trace.problemId} stored earlier`);
      continue;
    }
    const record = records.get(trace.problemId);
    if (!record) throw new Error(`problem ${trace.problemId} of the source traces is not in its split file`);
    const segments = reuseSegments ? item.segments : segmentTrace(model.lm, trace, config.segmentation);
    const refs = referenceTokens(record, model.lm.tokenizer, config.references.count);
    if (!referencesFit(trace, refs, model.lm.maxLength)) {
      // RREDCoT cannot score a reference after this trace's last exit point within the context: the
      // trace is left out of every method (so all methods see the same segments) and counted.
      skipped.push(trace.problemId);
      bar.tick(1, `${trace.problemId} skipped: last exit point + reference exceed the context`);
      continue;
    }
    const mc = await mcValuesWithReuse(
      model.lm,
      trace,
      segments,
      record,
      config.mc,
      item.mcRecords ? { records: item.mcRecords, cost: item.mcCost } : null,
      rng.fork(`mc-${trace.problemId}`),
    );
    const rr = await rredcot(model.lm, trace, segments, { tokens, references: { dataset: refs } }, config.rredcot);
    referenceCounts.push(rr.extra.referenceCount);
    const baselines: EstimatorResult<unknown>[] = [];
    if (config.baselines === 'compute') {
      baselines.push(await leaveOneOut(model.lm, trace, segments, { tokens }, config.loo));
      baselines.push(await gradientAttribution(model.lm, trace, segments, { tokens }, config.gradient));
    }
    const mcRows: EstimateRecord[] = mc.values.map((v, k) => ({ exitPoint: k, method: 'mc', value: v, credit: k === 0 ? null : v - mc.values[k - 1], sigma: null }));
    const estimates: EstimateRecord[] = [...[rr, ...baselines].flatMap((r) => toStoreRows(r).rows), ...mcRows];
    run.writeTraceBundle({
      key: trace.problemId,
      trace,
      checkpointHash: model.checkpointHash,
      segments,
      estimates,
      costs: [costOf('rredcot', rr), ...baselines.map((r) => costOf(r.method, r)), mc.cost],
    });
    bar.tick(1, `${trace.problemId} K=${segments.length}${mc.sampled ? `, MC sampled at ${mc.sampled} exit points` : ''}`);
    await yieldToEventLoop();
  }
  // a resumed run keeps the skips of its earlier attempt: they were not written either
  const allSkipped = [...new Set([...(store.getRun(run.id).tags.skippedTraces ?? '').split(',').filter(Boolean), ...skipped])].sort();
  run.setTags({ skippedTraces: allSkipped.join(',') });
  run.logMetrics({ skipped_traces: allSkipped.length });
  // distinct references actually used (problems with fewer valid orders than asked get fewer)
  if (referenceCounts.length) run.logMetrics({ mean_references: mean(referenceCounts) });
  logCorrelationSummary(store, run);
}
