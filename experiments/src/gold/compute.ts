import { mean, ProgressBar, type Rng, yieldToEventLoop } from '@rred/core';
import {
  gradientAttribution,
  leaveOneOut,
  ownReferences,
  referencesFit,
  rredcot,
  toStoreRows,
  truncatedMc,
  type EstimatorInputs,
  type EstimatorResult,
  type Reference,
} from '@rred/estimators';
import type { Trace } from '@rred/lm';
import type { ContinuationRow, CostRecord, EstimateRecord, Run, Store, TraceBundle } from '@rred/results-store';
import type { Segment } from '@rred/segmentation';
import { recordAlignment, referenceTokens, rewriteReference, type ReferenceRewrite, type TaskRecord } from '@rred/tasks';
import { costRecord } from '../common/cost-record';
import type { ComputeContext } from '../common/experiment';
import { continuationRows } from '../common/mc-records';
import type { ServedModelRef } from '../common/cli-args';
import { checkpointStem, sharedModel, type LoadedModel } from '../common/model';
import { bedSplit, continuationReward, generateRollouts, loadSplit, segmentTrace, specialTokens } from '../common/rollouts';
import type { GoldConfig } from './config';
import { analyzeGold, goldSummaryMetrics } from './analysis';
import { loadGold } from './load';
import { lookAtTraces } from './look';
import { firstErrorSegment, ORACLE_METHOD, type FirstError } from './first-error';
import { drawLayout, GOLD_METHOD, rredcotVariants } from './methods';
import { selectStratified } from './select';

/** One benchmark trace: its checkpoint, rollout, problem, exit points and RREDCoT references. */
interface Item {
  /** Store key: `<checkpoint stem>/<problem id>`. */
  key: string;
  /** Checkpoint stem (results key). */
  stem: string;
  model: LoadedModel;
  trace: Trace;
  record: TaskRecord;
  segments: Segment[];
  refs: Reference[];
  /** The model's own correct siblings (G − 1 samples of the same problem; never a copy of the trace) that fit the context. */
  own: Reference[];
  /** The canonical dataset reference rewritten for the stress arm, per rewrite. */
  rewritten: Partial<Record<ReferenceRewrite, Reference[]>>;
}

/** Store bundle key of a trace: unique across checkpoints. */
const traceKey = (checkpoint: string, problemId: string): string => `${checkpointStem(checkpoint)}/${problemId}`;

/** T = 1 rollouts on the first `problems` problems of the split, then the stratified choice and its exit points. */
async function itemsOf(checkpoint: string, config: GoldConfig, rng: Rng, served: ServedModelRef | null): Promise<Item[]> {
  const model = await sharedModel(checkpoint, served);
  const stem = checkpointStem(checkpoint);
  const records = loadSplit(bedSplit(config.split, checkpoint), config.problems);
  const traces = await generateRollouts(model.lm, records, config.rollout, rng.fork('rollouts'));
  const refs = records.map((r) => referenceTokens(r, model.lm.tokenizer, config.references.count));
  const candidates = traces.map((t, i) => ({ reward: t.reward, fits: referencesFit(t, refs[i], model.lm.maxLength) }));
  const { indices, skippedOverlong } = selectStratified(candidates, config.traces, `${stem} (${checkpoint})`);
  const looked = Math.max(...indices) + 1;
  process.stderr.write(
    `gold ${stem}: T = 1 accuracy ${(traces.filter((t) => t.reward > 0).length / traces.length).toFixed(3)} on ${traces.length} problems; ` +
      `kept ${indices.length} traces from the first ${looked} (${skippedOverlong} left out: last exit point + reference exceed the context)\n`,
  );
  const own = await siblingReferences(
    model,
    indices.map((i) => records[i]),
    indices.map((i) => traces[i]),
    config,
    rng.fork('own-references'),
  );
  return indices.map((i, n) => ({
    key: traceKey(checkpoint, traces[i].problemId),
    stem,
    model,
    trace: traces[i],
    record: records[i],
    segments: segmentTrace(model.lm, traces[i], config.segmentation),
    refs: refs[i],
    own: own[n],
    rewritten: Object.fromEntries(config.stressArm.map((w) => [w, rewrittenReferences(model, records[i], w)])),
  }));
}

/**
 * Own references (Sec. 4) as GRPO has them for free: G − 1 more samples of each trace's problem with the
 * rollout's settings, kept when correct and finished, when not a copy of the trace, and when the trace's
 * last exit point plus the reference fits the context.
 */
async function siblingReferences(
  model: LoadedModel,
  records: TaskRecord[],
  traces: Trace[],
  config: GoldConfig,
  rng: Rng,
): Promise<Reference[][]> {
  const siblings = config.ownReferences.groupSize - 1;
  const drawn = await generateRollouts(
    model.lm,
    records.flatMap((r) => new Array<TaskRecord>(siblings).fill(r)),
    config.rollout,
    rng,
  );
  const tokens = specialTokens(model.lm.tokenizer);
  return traces.map((trace, n) => {
    const same = (t: Trace) => t.completion.length === trace.completion.length && t.completion.every((x, i) => x === trace.completion[i]);
    const group = drawn.slice(n * siblings, (n + 1) * siblings).filter((t) => !same(t));
    return ownReferences(group, tokens).filter((ref) => referencesFit(trace, [ref], model.lm.maxLength));
  });
}

/** The record's canonical reference rewritten for the stress arm, as the one dataset reference. */
function rewrittenReferences(model: LoadedModel, record: TaskRecord, rewrite: ReferenceRewrite): Reference[] {
  const tokenizer = model.lm.tokenizer;
  return [{ solution: tokenizer.encode(rewriteReference(record, rewrite).solution), answer: tokenizer.encode(record.answer) }];
}

/**
 * Gold MC, the MC(n) draws, every RREDCoT variant, LOO and gradient on one trace, and the step oracle's
 * first-error segment, as one store bundle (the oracle's verdict also returned, for the log line).
 */
async function benchmarkTrace(
  item: Item,
  config: GoldConfig,
  rng: Rng,
  served: ServedModelRef | null,
): Promise<{ bundle: TraceBundle; error: FirstError }> {
  const { model, trace, segments } = item;
  const lm = model.lm;
  const tokens = specialTokens(lm.tokenizer);
  const mcInputs: EstimatorInputs = { tokens, reward: continuationReward(lm.tokenizer, item.record) };
  const estimates: EstimateRecord[] = [];
  const continuations: ContinuationRow[] = [];
  const costs: CostRecord[] = [];
  const keep = (method: string, result: EstimatorResult<unknown>) => {
    estimates.push(...toStoreRows(result, method).rows);
    costs.push(costRecord(method, result));
  };
  for (const slot of drawLayout(config.gold.samplesPerExitPoint, config.mcSamples)) {
    // every draw from its own fork: the MC(n) samples are independent of the gold samples and of each other
    const mc = await truncatedMc(lm, trace, segments, mcInputs, { ...config.gold, samplesPerExitPoint: slot.n }, rng.fork(slot.method));
    keep(slot.method, mc);
    continuations.push(...continuationRows(mc.extra.records).map((r) => ({ ...r, sample: r.sample + slot.start })));
  }
  const alignment = recordAlignment(item.record, lm.tokenizer);
  for (const v of rredcotVariants(config.references.count, config.stressArm, config.ownReferences.groupSize - 1)) {
    const dataset = v.rewrite === 'canonical' ? item.refs : item.rewritten[v.rewrite]!;
    const inputs: EstimatorInputs = { tokens, references: { dataset, own: item.own }, alignment };
    keep(v.name, await rredcot(lm, trace, segments, inputs, v.config));
  }
  keep('loo', await leaveOneOut(lm, trace, segments, { tokens }, config.loo));
  // a served model has no weights to differentiate: gradient attribution is left out there (checkServed says so)
  if (!served) keep('gradient', await gradientAttribution(lm, trace, segments, { tokens }, config.gradient));
  const error = firstErrorSegment(item.record, trace, segments, (id) => lm.tokenizer.tokenText(id));
  segments.forEach((_, i) =>
    estimates.push({ exitPoint: i + 1, method: ORACLE_METHOD, value: null, credit: error.segment === i + 1 ? 1 : 0, sigma: null }),
  );
  return {
    bundle: { key: item.key, trace, checkpointHash: model.checkpointHash, segments, estimates, continuations, costs },
    error,
  };
}

export async function computeGold({ store, run, config, rng, served }: ComputeContext<GoldConfig>): Promise<void> {
  const started = Date.now();
  const items: Item[] = [];
  for (const checkpoint of config.checkpoints) {
    const forCheckpoint = await itemsOf(checkpoint, config, rng.fork(checkpointStem(checkpoint)), served);
    if (forCheckpoint[0].model.tags) run.setTags(forCheckpoint[0].model.tags);
    run.setTags({ [`checkpointHash.${checkpointStem(checkpoint)}`]: forCheckpoint[0].model.checkpointHash });
    items.push(...forCheckpoint);
  }
  const perExitPoint = config.gold.samplesPerExitPoint + config.mcSamples.reduce((a, b) => a + b, 0);
  const work = (item: Item) => (item.segments.length + 1) * perExitPoint;
  const done = run.traceKeys();
  const bar = new ProgressBar(
    'gold: continuations sampled',
    items.reduce((n, it) => n + work(it), 0),
  );
  for (const item of items) {
    if (done.has(item.key)) {
      bar.tick(work(item), `${item.key} stored earlier`);
      continue;
    }
    const t0 = Date.now();
    const { bundle, error } = await benchmarkTrace(item, config, rng.fork(item.stem).fork(item.trace.problemId), served);
    run.writeTraceBundle(bundle);
    const verdict = error.segment === null ? 'no error' : `${error.kind} in segment ${error.segment}`;
    bar.tick(
      work(item),
      `${item.key} K=${item.segments.length} ζ=${item.trace.reward} ${verdict}, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    await yieldToEventLoop();
  }
  run.logMetrics({ [`wall_seconds.attempt_${store.getRun(run.id).attempts}`]: (Date.now() - started) / 1000 });
  run.logMetrics(await referenceMetrics(items, config));
  logGoldSummary(store, run);
  lookAtTraces(store, run.id, config.look);
}

/**
 * What the reference sets look like to the model, per checkpoint, as run metrics:
 * - `<stem>.references.meanTokenLogp.<canonical|rewrite>`: mean over traces of the reference's mean per-token
 *   log p after the prompt (u* `</think>` y* `<eos>`): how atypical each rewrite is against the canonical wording;
 * - `<stem>.references.changed.<rewrite>`: the share of traces whose reference the rewrite changed;
 * - `<stem>.ownReferences.{mean,none,noneCorrect,noneWrong}`: own references per trace, and the share of
 *   traces (all, correct, wrong) with none (their '@own' variants fall back to uniform σ and NaN credits).
 */
async function referenceMetrics(items: readonly Item[], config: GoldConfig): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const stem of [...new Set(items.map((it) => it.stem))]) {
    const mine = items.filter((it) => it.stem === stem);
    const share = (xs: readonly Item[], f: (it: Item) => boolean) => (xs.length ? xs.filter(f).length / xs.length : NaN);
    const { endThink, eos } = specialTokens(mine[0].model.lm.tokenizer);
    for (const w of ['canonical', ...config.stressArm] as const) {
      const perTrace: number[] = [];
      for (const it of mine) {
        const ref = w === 'canonical' ? it.refs[0] : it.rewritten[w]![0];
        const suffix = [...ref.solution, endThink, ...ref.answer, eos];
        const { logprobs } = await it.model.lm.scoreAfterPrefixes(it.trace.prompt, [{ exitAt: it.trace.prompt.length, suffix }]);
        perTrace.push(mean(logprobs[0]));
      }
      out[`${stem}.references.meanTokenLogp.${w}`] = mean(perTrace);
      if (w !== 'canonical') {
        out[`${stem}.references.changed.${w}`] = share(mine, (it) => rewriteReference(it.record, w).changed);
      }
    }
    out[`${stem}.ownReferences.mean`] = mine.reduce((n, it) => n + it.own.length, 0) / mine.length;
    out[`${stem}.ownReferences.none`] = share(mine, (it) => it.own.length === 0);
    out[`${stem}.ownReferences.noneCorrect`] = share(
      mine.filter((it) => it.trace.reward > 0),
      (it) => it.own.length === 0,
    );
    out[`${stem}.ownReferences.noneWrong`] = share(
      mine.filter((it) => it.trace.reward === 0),
      (it) => it.own.length === 0,
    );
  }
  return out;
}

/** Headline numbers as run metrics (`rred runs compare`): per checkpoint and method, the within-trace Spearman with ΔV_gold. */
function logGoldSummary(store: Store, run: Run): void {
  run.logMetrics(goldSummaryMetrics(analyzeGold(loadGold(store, run.id))));
}
