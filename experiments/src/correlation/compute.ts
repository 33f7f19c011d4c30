import { mean, ProgressBar, repoRoot, UserError, yieldToEventLoop } from '@rred/core';
import { gradientAttribution, leaveOneOut, referencesFit, rredcot, toStoreRows, truncatedMc, type EstimatorResult } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { CostRecord, EstimateRecord } from '@rred/results-store';
import { readJsonl, referenceTokens, type TaskRecord } from '@rred/tasks';
import * as path from 'path';
import { costRecord } from '../common/cost-record';
import type { ComputeContext } from '../common/experiment';
import { sharedModel, type LoadedModel } from '../common/model';
import { continuationRows, MC_SHARED_PREFILL_TAG } from '../common/mc-records';
import { bedSplit, continuationReward, generateRollouts, loadSplit, segmentTrace, specialTokens } from '../common/rollouts';
import type { Segment } from '@rred/segmentation';
import { mcAtN, type CorrelationConfig } from './config';
import { logCorrelationSummary } from './load';
import { mcValuesWithReuse } from './mc-reuse';
import { loadSource, NO_SOURCE_RUN, sourceRunFor, type SourceItem } from './source';

/**
 * MC with n samples per exit point as a method (config.mcAtEqualCost): fresh continuations from a
 * stream of its own (`mc-n<n>-<problem>`), so its noise is independent of the proxy's.
 */
async function mcAtEqualCost(
  ctx: ComputeContext<CorrelationConfig>,
  model: LoadedModel,
  trace: Trace,
  segments: Segment[],
  record: TaskRecord,
): Promise<{ rows: EstimateRecord[]; costs: CostRecord[] }> {
  const { config, rng } = ctx;
  const inputs = { tokens: specialTokens(model.lm.tokenizer), reward: continuationReward(model.lm.tokenizer, record) };
  const rows: EstimateRecord[] = [];
  const costs: CostRecord[] = [];
  for (const n of config.mcAtEqualCost) {
    const mcConfig = { ...config.mc, samplesPerExitPoint: n, progress: false };
    const result = await truncatedMc(model.lm, trace, segments, inputs, mcConfig, rng.fork(`${mcAtN(n)}-${trace.problemId}`));
    rows.push(...toStoreRows(result, mcAtN(n)).rows);
    costs.push(costRecord(mcAtN(n), result));
  }
  return { rows, costs };
}

/** Every problem record of a split file, by id (stored traces name their problem by id). */
function recordsById(split: string): Map<string, TaskRecord> {
  const all = readJsonl(path.join(repoRoot(), 'packages', 'tasks', 'data', `${split}.jsonl`));
  return new Map(all.map((r) => [r.id, r]));
}

interface TraceSet {
  items: SourceItem[];
  records: Map<string, TaskRecord>;
  /** The source run's segments are this config's segmentation: reuse them instead of re-cutting. */
  reuseSegments: boolean;
}

/** The traces to score: those of the newest matching mc-variance run, or fresh rollouts when there is none and the config allows it. */
async function traceSet({ store, run, config, rng }: ComputeContext<CorrelationConfig>, model: LoadedModel): Promise<TraceSet> {
  const sourceId = sourceRunFor(store, config, model.checkpointHash);
  if (sourceId) {
    const source = loadSource(store, sourceId, config);
    // the reused MC is charged at the source's stored cost: at its best only if the source shared its prefills
    const shared = store.getRun(sourceId).tags[MC_SHARED_PREFILL_TAG] === 'true' || !source.sameMc;
    run.setTags({
      sourceRun: sourceId,
      reusedSegments: String(source.sameSegmentation),
      reusedMc: String(source.sameMc),
      [MC_SHARED_PREFILL_TAG]: String(shared),
    });
    process.stderr.write(
      `correlation: reusing ${source.items.length} traces of mc-variance run ${sourceId} (segments ${source.sameSegmentation ? 'reused' : 're-cut'}, MC ${source.sameMc ? 'reused where exit points match' : 'resampled'})\n`,
    );
    return { items: source.items, records: recordsById(source.config.split), reuseSegments: source.sameSegmentation };
  }
  const list = loadSplit(bedSplit(config.generate.split, config.checkpoint), config.generate.problems);
  const traces: Trace[] = await generateRollouts(model.lm, list, config.generate.rollout, rng.fork('rollouts'));
  run.setTags({ sourceRun: NO_SOURCE_RUN, [MC_SHARED_PREFILL_TAG]: 'true' });
  process.stderr.write(
    `correlation: no FINISHED mc-variance run for checkpoint ${model.checkpointHash.slice(0, 12)}; generated ${traces.length} traces\n`,
  );
  return {
    items: traces.map((trace) => ({ trace, segments: [], mcRecords: null, mcCost: null })),
    records: new Map(list.map((r) => [r.id, r])),
    reuseSegments: false,
  };
}

/**
 * Every method's credit for one trace, written as one trace bundle; null (nothing written) when the
 * trace's last exit point + reference suffix exceed the context: RREDCoT cannot score it, so the trace
 * is left out of every method (all methods see the same segments). Returns the reference count used.
 */
async function scoreTrace(
  ctx: ComputeContext<CorrelationConfig>,
  model: LoadedModel,
  set: TraceSet,
  item: SourceItem,
): Promise<{ references: number; label: string } | null> {
  const { run, config, rng } = ctx;
  const { trace } = item;
  const record = set.records.get(trace.problemId);
  if (!record) throw new Error(`problem ${trace.problemId} of the source traces is not in its split file`);
  const segments = set.reuseSegments ? item.segments : segmentTrace(model.lm, trace, config.segmentation);
  const refs = referenceTokens(record, model.lm.tokenizer, config.references.count);
  if (!referencesFit(trace, refs, model.lm.maxLength)) return null;
  const tokens = specialTokens(model.lm.tokenizer);
  const reuse = item.mcRecords ? { records: item.mcRecords, cost: item.mcCost } : null;
  const mc = await mcValuesWithReuse(model.lm, trace, segments, record, config.mc, reuse, rng.fork(`mc-${trace.problemId}`));
  const rr = await rredcot(model.lm, trace, segments, { tokens, references: { dataset: refs } }, config.rredcot);
  const baselines: EstimatorResult<unknown>[] = [];
  let cheapMc: { rows: EstimateRecord[]; costs: CostRecord[] } = { rows: [], costs: [] };
  if (config.baselines === 'compute') {
    baselines.push(await leaveOneOut(model.lm, trace, segments, { tokens }, config.loo));
    baselines.push(await gradientAttribution(model.lm, trace, segments, { tokens }, config.gradient));
    cheapMc = await mcAtEqualCost(ctx, model, trace, segments, record);
  }
  const mcRows: EstimateRecord[] = mc.values.map((v, k) => ({
    exitPoint: k,
    method: 'mc',
    value: v,
    credit: k === 0 ? null : v - mc.values[k - 1],
    sigma: null,
  }));
  run.writeTraceBundle({
    key: trace.problemId,
    trace,
    checkpointHash: model.checkpointHash,
    segments,
    estimates: [...[rr, ...baselines].flatMap((r) => toStoreRows(r).rows), ...mcRows, ...cheapMc.rows],
    // the proxy's continuations, so its split-half reliability (the noise ceiling) is computable from this run alone
    continuations: continuationRows(mc.records),
    costs: [costRecord('rredcot', rr), ...baselines.map((r) => costRecord(r.method, r)), mc.cost, ...cheapMc.costs],
  });
  return {
    references: rr.extra.referenceCount,
    label: `K=${segments.length}${mc.sampled ? `, MC sampled at ${mc.sampled} exit points` : ''}`,
  };
}

export async function computeCorrelation(ctx: ComputeContext<CorrelationConfig>): Promise<void> {
  const { store, run, config } = ctx;
  const model = await sharedModel(config.checkpoint, ctx.served);
  if (model.tags) run.setTags(model.tags);
  const set = await traceSet(ctx, model);
  const items = config.maxTraces !== null ? set.items.slice(0, config.maxTraces) : set.items;
  run.setTags({ checkpointHash: model.checkpointHash });
  const done = run.traceKeys();
  const skipped: string[] = [];
  const referenceCounts: number[] = [];
  const bar = new ProgressBar('correlation: estimators per trace', items.length);
  for (const item of items) {
    const id = item.trace.problemId;
    if (done.has(id)) {
      bar.tick(1, `${id} stored earlier`);
      continue;
    }
    const scored = await scoreTrace(ctx, model, set, item);
    if (scored) referenceCounts.push(scored.references);
    else skipped.push(id);
    bar.tick(1, scored ? `${id} ${scored.label}` : `${id} skipped: last exit point + reference exceed the context`);
    if (scored) await yieldToEventLoop();
  }
  // a resumed run keeps the skips of its earlier attempt: they were not written either
  const allSkipped = [...new Set([...(store.getRun(run.id).tags.skippedTraces ?? '').split(',').filter(Boolean), ...skipped])].sort();
  run.setTags({ skippedTraces: allSkipped.join(',') });
  run.logMetrics({ skipped_traces: allSkipped.length });
  // distinct references actually used (problems with fewer valid orders than asked get fewer)
  if (referenceCounts.length) run.logMetrics({ mean_references: mean(referenceCounts) });
  logCorrelationSummary(store, run);
}
