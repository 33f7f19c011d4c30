/**
 * RREDCoT credit assignment (Sec. 3.2). For every exit point s_k the model scores, after the prefix,
 *   - the immediate suffixes `</think> y* <eos>` for each distinct reference answer (Eq. 7; with exit
 *     'forced' the `</think>` token's own log-probability is left out of the score), and
 *   - the value suffixes `u*_j </think> y*_j <eos>` for each reference pair (Eq. 9; u*_j is the whole
 *     reference path with valueSuffix 'full', or what the task's alignment says is left of it at s_k
 *     with 'remaining'),
 * all in one prefix-sharing scoring call (one per batch of traces with `rredcotBatch`). v̂(s_k) ∈ {I, V, I+V} is kept in log space;
 * r_k = v̂(s_k) − v̂(s_{k−1}) in log or probability space; σ from r: see sigma.ts.
 */
import { UserError } from '@rred/core';
import type { ComputeCost, LanguageModel, ScoreJob, SequenceCache, SuffixRequest, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { CostMeter } from './cost';
import { exitPoints } from './exit-points';
import { logAddExp, logSumExp, sumLogprobs } from './logspace';
import { buildReferenceSet, distinctAnswers } from './references';
import { parseRredcotConfig, type RredcotConfig, type RredcotConfigInput } from './rredcot-config';
import { reportedSigmaConfig, segmentSigma } from './sigma';
import type { EstimatorCost, EstimatorInputs, EstimatorResult } from './types';
import { logValue as logValueOf, valueRequests, type ValueRequests } from './value-term';

interface RredcotExtra {
  /** log I(s_k), k = 0..K (null when terms = 'value'). */
  logImmediate: number[] | null;
  /** log V(s_k), k = 0..K (null when terms = 'immediate'). */
  logValue: number[] | null;
  /** log v̂(s_k), k = 0..K: the quantity whose differences are the credits. */
  logValues: number[];
  referenceCount: number;
  distinctAnswerCount: number;
  /** Suffix requests scored (exit points × suffixes). */
  requestCount: number;
  /** True when R was empty and emptyReferences = 'uniform' produced the result. */
  noReferences: boolean;
  /** True when the last exit point + the longest suffix exceeded the context and overlong = 'uniform' produced the result. */
  overlong: boolean;
  config: RredcotConfig;
}

/** One trace to credit: what `rredcot` takes besides the model and the config. */
interface RredcotItem {
  trace: Trace;
  segments: Segment[];
  inputs: EstimatorInputs;
  /** The sampler's cache of the trace (`SampleResult.cache`): with sharedPrefix scoring, only the suffixes are forwarded. */
  cache?: SequenceCache;
}

/** RREDCoT credits for one trace: all exit points × all suffixes in one `scoreAfterPrefixes` call. */
export async function rredcot(
  model: LanguageModel,
  trace: Trace,
  segments: Segment[],
  inputs: EstimatorInputs,
  config: RredcotConfigInput = {},
): Promise<EstimatorResult<RredcotExtra>> {
  const [result] = await rredcotBatch(model, [{ trace, segments, inputs }], config);
  return result;
}

/**
 * RREDCoT credits for many traces (e.g. a GRPO batch) with the same config. With sharedPrefix
 * scoring, all traces go to the model in one `scoreBatch` call (one `scoreAfterPrefixes` call when
 * there is a single trace), so the fixed cost of a model call is paid once per batch, not per trace.
 * Each result's cost counts its own trace's tokens; wallMs is the batch's wall time split evenly.
 */
export async function rredcotBatch(
  model: LanguageModel,
  items: RredcotItem[],
  config: RredcotConfigInput = {},
): Promise<EstimatorResult<RredcotExtra>[]> {
  const cfg = parseRredcotConfig(config);
  const started = Date.now();
  const plans = items.map((item) => planTrace(model, item, cfg));
  const scored = plans.filter((p): p is ScoringPlan => p.kind === 'score');
  const scores = await scoreAllExitPoints(model, scored, cfg.scoring);
  const wallMs = (Date.now() - started) / Math.max(1, items.length);
  let next = 0;
  return plans.map((plan) => {
    if (plan.kind === 'fallback') return { ...plan.result, cost: { ...plan.result.cost, wallMs } };
    const { logprobs, cost } = scores[next++];
    return finishTrace(plan, logprobs, cfg, { ...cost, wallMs });
  });
}

interface ScoringPlan {
  kind: 'score';
  trace: Trace;
  ep: ReturnType<typeof exitPoints>;
  referenceCount: number;
  answerCount: number;
  /** suffixesAt[k]: what is scored at exit point k, the immediate suffixes (Eq. 7) first, then the value suffixes (Eq. 9). [K+1][S_k][len] */
  suffixesAt: number[][][];
  /** valueAt[k]: the value term's requests at exit point k (the tail of suffixesAt[k]) and their reference groups. */
  valueAt: ValueRequests[];
  immediateCount: number;
  cache?: SequenceCache;
}
type Plan = ScoringPlan | { kind: 'fallback'; result: EstimatorResult<RredcotExtra> };

/** Exit points, reference set and suffixes of one trace, or its uniform fallback result. */
function planTrace(model: LanguageModel, { trace, segments, inputs, cache }: RredcotItem, cfg: RredcotConfig): Plan {
  const { tokens } = inputs;
  const ep = exitPoints(trace, segments, tokens);
  const refs = buildReferenceSet(inputs.references ?? {}, cfg.referenceSource, tokens, cfg.maxReferences);
  const uniform = (flags: { noReferences: boolean; overlong: boolean }): Plan => {
    const K = segments.length;
    const result: EstimatorResult<RredcotExtra> = {
      method: 'rredcot',
      fallback: flags.noReferences ? 'noReferences' : 'overlong',
      credits: new Array<number>(K).fill(NaN),
      sigma: segmentSigma(new Array<number>(K).fill(NaN), ep.segmentLengths, 1, reportedSigmaConfig('uniform', cfg.tau)),
      extra: {
        logImmediate: null,
        logValue: null,
        logValues: [],
        referenceCount: refs.length,
        distinctAnswerCount: 0,
        requestCount: 0,
        ...flags,
        config: cfg,
      },
      cost: { tokensForwarded: 0, tokensGenerated: 0, forwardPasses: 0, wallMs: 0 },
    };
    return { kind: 'fallback', result };
  };

  if (refs.length === 0) {
    if (cfg.emptyReferences === 'error') {
      throw new UserError(
        `rredcot: trace '${trace.problemId}' has no references for referenceSource '${cfg.referenceSource}' (set emptyReferences: 'uniform' to fall back to Eq. 12)`,
      );
    }
    return uniform({ noReferences: true, overlong: false });
  }

  const alignment = cfg.alignment ?? (cfg.valueSuffix === 'remaining' ? 'task' : 'none');
  if (cfg.terms !== 'immediate' && (cfg.valueSuffix === 'remaining') !== (alignment === 'task')) {
    throw new UserError(
      `rredcot: valueSuffix '${cfg.valueSuffix}' with alignment '${alignment}': only 'remaining' reads the task's alignment, and it needs alignment 'task'`,
    );
  }
  if (cfg.terms !== 'immediate' && alignment === 'task' && !inputs.alignment) {
    throw new UserError(
      `rredcot: valueSuffix 'remaining' needs inputs.alignment (the task's subgoal alignment), trace '${trace.problemId}' has none`,
    );
  }
  const answers = distinctAnswers(refs);
  const immediateSuffixes = cfg.terms === 'value' ? [] : answers.map((y) => [tokens.endThink, ...y, tokens.eos]);
  // the value term's requests at each exit point (Eq. 9); the task's alignment is passed on only when it may be read
  const valueInputs: EstimatorInputs = alignment === 'task' ? inputs : { ...inputs, alignment: undefined };
  const valueAt = ep.exitAt.map((at) =>
    cfg.terms === 'immediate'
      ? { suffixes: [], group: [], groupCount: 0 }
      : valueRequests(refs, ep.sequence.slice(trace.prompt.length, at), valueInputs, cfg.valueSuffix, cfg.referencePooling),
  );
  const suffixesAt = valueAt.map((v) => [...immediateSuffixes, ...v.suffixes]);
  const over = ep.exitAt.findIndex((at, k) => at + Math.max(...suffixesAt[k].map((x) => x.length)) > model.maxLength);
  if (over >= 0) {
    if (cfg.overlong === 'error') {
      const longest = Math.max(...suffixesAt[over].map((x) => x.length));
      throw new UserError(
        `rredcot: trace '${trace.problemId}': exit point at ${ep.exitAt[over]} tokens + reference suffix of ${longest} tokens exceeds the model's maxLength ${model.maxLength}; ` +
          "use shorter references or set overlong: 'uniform' to fall back to Eq. 12",
      );
    }
    return uniform({ noReferences: false, overlong: true });
  }
  return {
    kind: 'score',
    trace,
    ep,
    referenceCount: refs.length,
    answerCount: answers.length,
    suffixesAt,
    valueAt,
    immediateCount: immediateSuffixes.length,
    ...(cache ? { cache } : {}),
  };
}

/**
 * Eq. 7 / Eq. 9 values from the scored suffixes, then the credits and σ of one trace. `logprobs[k][i]`
 * are the per-token log-probabilities of suffix i at exit point k.
 */
function finishTrace(plan: ScoringPlan, logprobs: number[][][], cfg: RredcotConfig, cost: EstimatorCost): EstimatorResult<RredcotExtra> {
  const { ep, trace } = plan;
  const nI = plan.immediateCount;
  const hasValue = cfg.terms !== 'immediate';
  // exit 'forced': log p(y* <eos> | s_k, </think>) = the joint score without its first token, the `</think>`
  const skip = cfg.exit === 'forced' ? 1 : 0;
  const logImmediate = nI ? logprobs.map((row) => logSumExp(row.slice(0, nI).map((lp) => sumLogprobs(lp.slice(skip))))) : null; // Eq. 7
  // Eq. 9: the start rule inside each reference, then Σ over distinct suffixes ('sum') or (1/N) Σ over the N references ('literal')
  const logValue = hasValue
    ? logprobs.map((row, k) => logValueOf(row.slice(nI), plan.valueAt[k], cfg.valueSuffix, cfg.referencePooling, plan.referenceCount))
    : null;
  // terms 'immediatePlusValue': the exit term plus the continuation term; I or V alone otherwise
  const logValues = ep.exitAt.map(
    (_, k) => (logImmediate && logValue ? logAddExp(logImmediate[k], logValue[k]) : (logImmediate ?? logValue)![k]), // Eq. 2: v̂ = I + V
  );
  logValues.forEach((lv, k) => {
    if (Number.isNaN(lv) || (cfg.space === 'log' && !Number.isFinite(lv))) {
      throw new Error(`rredcot: trace '${trace.problemId}': log v̂(s_${k}) = ${lv}; log-space credits need every reference probability > 0`);
    }
  });

  const credits = ep.segmentLengths.map((_, i) =>
    cfg.space === 'log' ? logValues[i + 1] - logValues[i] : Math.exp(logValues[i + 1]) - Math.exp(logValues[i]),
  );
  return {
    method: 'rredcot',
    credits,
    values: logValues.map(Math.exp),
    sigma: segmentSigma(credits, ep.segmentLengths, 1, reportedSigmaConfig(cfg.normalization, cfg.tau)),
    extra: {
      logImmediate,
      logValue,
      logValues,
      referenceCount: plan.referenceCount,
      distinctAnswerCount: plan.answerCount,
      requestCount: plan.suffixesAt.reduce((n, s) => n + s.length, 0),
      noReferences: false,
      overlong: false,
      config: cfg,
    },
    cost,
  };
}

/**
 * Per-token log p(suffix_i | first exitAt[k] tokens) for every plan, exit point k and its suffixes i:
 * [plan][K+1][S_k][len], with each plan's model cost.
 */
async function scoreAllExitPoints(
  model: LanguageModel,
  plans: ScoringPlan[],
  scoring: RredcotConfig['scoring'],
): Promise<{ logprobs: number[][][]; cost: ComputeCost }[]> {
  if (plans.length === 0) return [];
  const split = (plan: ScoringPlan, rows: number[][]): number[][][] => {
    let at = 0;
    return plan.suffixesAt.map((s) => rows.slice(at, (at += s.length)));
  };
  if (scoring === 'sharedPrefix' || scoring === 'sharedContinuation') {
    // Tokens after the last exit point (the answer) are never a prefix, so they are not forwarded.
    // With the sampler's cache (ScoreJob.cache) a model that can use it forwards only the suffixes.
    const jobs: ScoreJob[] = plans.map(({ ep, suffixesAt, cache }) => ({
      sequence: ep.sequence.slice(0, ep.exitAt[ep.exitAt.length - 1]),
      requests: ep.exitAt.flatMap((at, k) => suffixesAt[k].map((suffix) => ({ exitAt: at, suffix }))),
      ...(cache ? { cache } : {}),
    }));
    // sharedContinuation: a request whose tokens continue another one's is read from it, not sent
    const reuse = jobs.map((job) =>
      scoring === 'sharedContinuation' ? continuationSources(job.sequence, job.requests) : identitySources(job.requests.length),
    );
    const sent = jobs.map((job, p) => ({ ...job, requests: reuse[p].roots.map((i) => job.requests[i]) }));
    const results =
      sent.length === 1 && !sent[0].cache
        ? [await model.scoreAfterPrefixes(sent[0].sequence, sent[0].requests)]
        : await model.scoreBatch(sent);
    if (results.length !== jobs.length) throw new Error(`rredcot: model returned ${results.length} results for ${jobs.length} traces`);
    return plans.map((plan, p) => {
      checkShape(results[p].logprobs, sent[p].requests);
      const rows = jobs[p].requests.map((r, i) => {
        const { root, offset } = reuse[p].source[i];
        return results[p].logprobs[root].slice(offset, offset + r.suffix.length);
      });
      return { logprobs: split(plan, rows), cost: results[p].cost };
    });
  }
  const out: { logprobs: number[][][]; cost: ComputeCost }[] = [];
  for (const { ep, suffixesAt } of plans) {
    const meter = new CostMeter();
    const logprobs: number[][][] = [];
    for (const [k, at] of ep.exitAt.entries()) {
      const requests = suffixesAt[k].map((suffix) => ({ exitAt: at, suffix }));
      const res = await model.scoreAfterPrefixes(ep.sequence.slice(0, at), requests);
      meter.add(res.cost);
      checkShape(res.logprobs, requests);
      logprobs.push(res.logprobs);
    }
    const { wallMs: _, ...cost } = meter.finish();
    out.push({ logprobs, cost });
  }
  return out;
}

function checkShape(logprobs: number[][], requests: SuffixRequest[]): void {
  if (logprobs.length !== requests.length || logprobs.some((lp, i) => lp.length !== requests[i].suffix.length)) {
    throw new Error(`rredcot: model returned ${logprobs.length} score rows for ${requests.length} requests or rows of the wrong length`);
  }
}

/** Which requests are sent (`roots`, request indices) and where each request's log-probabilities are read. */
interface ContinuationSources {
  roots: number[];
  /** Per request: the index into `roots` of the sent request holding it, and its token offset there. */
  source: { root: number; offset: number }[];
}

function identitySources(n: number): ContinuationSources {
  return { roots: Array.from({ length: n }, (_, i) => i), source: Array.from({ length: n }, (_, i) => ({ root: i, offset: 0 })) };
}

/**
 * Requests whose tokens continue another's (scoring 'sharedContinuation'). Request i = (a_i, u_i) is
 * read from request j = (a_j, u_j) when a_j ≤ a_i, u_j starts with sequence[a_j, a_i) and then u_i:
 * every token of u_i then has the same context and position in both, so its log-probability is the same
 * number (e.g. the `remaining` value suffix after a correct line that is the reference's, or the
 * immediate suffix once nothing of the reference is left). Requests are visited by exit point, longest
 * suffix first; each is matched against the requests sent so far, else sent. [O(requests² · |u|)]
 */
function continuationSources(sequence: readonly number[], requests: readonly SuffixRequest[]): ContinuationSources {
  const order = requests
    .map((_, i) => i)
    .sort((a, b) => requests[a].exitAt - requests[b].exitAt || requests[b].suffix.length - requests[a].suffix.length || a - b);
  const roots: number[] = [];
  const source: { root: number; offset: number }[] = new Array(requests.length);
  const continues = (j: number, i: number): boolean => {
    const { exitAt: aj, suffix: uj } = requests[j];
    const { exitAt: ai, suffix: ui } = requests[i];
    const d = ai - aj;
    if (d < 0 || d + ui.length > uj.length) return false;
    for (let t = 0; t < d; t++) if (uj[t] !== sequence[aj + t]) return false;
    for (let t = 0; t < ui.length; t++) if (uj[d + t] !== ui[t]) return false;
    return true;
  };
  for (const i of order) {
    const r = requests[i].suffix.length > 0 ? roots.findIndex((j) => continues(j, i)) : -1;
    if (r >= 0) source[i] = { root: r, offset: requests[i].exitAt - requests[roots[r]].exitAt };
    else {
      source[i] = { root: roots.length, offset: 0 };
      roots.push(i);
    }
  }
  return { roots, source };
}
