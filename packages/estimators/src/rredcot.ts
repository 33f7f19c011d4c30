/**
 * RREDCoT credit assignment (Sec. 3.2). For every exit point s_k the model scores, after the prefix,
 *   - the immediate suffixes `</think> y* <eos>` for each distinct reference answer (Eq. 7), and
 *   - the value suffixes `u*_j </think> y*_j <eos>` for each reference pair (Eq. 9),
 * all in one prefix-sharing `scoreAfterPrefixes` call. v̂(s_k) ∈ {I, V, I+V} is kept in log space;
 * r_k = v̂(s_k) − v̂(s_{k−1}) in log or probability space; σ = normalize(r) (Eq. 11).
 */
import { UserError } from '@rred/core';
import type { LanguageModel, SuffixRequest, Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import { CostMeter } from './cost';
import { exitPoints } from './exit-points';
import { logAddExp, logSumExp, sumLogprobs } from './logspace';
import { normalizeCredits } from './normalize';
import { buildReferenceSet, distinctAnswers } from './references';
import { parseRredcotConfig, type RredcotConfig, type RredcotConfigInput } from './rredcot-config';
import type { EstimatorInputs, EstimatorResult } from './types';

export interface RredcotExtra {
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
  config: RredcotConfig;
}

export async function rredcot(
  model: LanguageModel,
  trace: Trace,
  segments: Segment[],
  inputs: EstimatorInputs,
  config: RredcotConfigInput = {},
): Promise<EstimatorResult<RredcotExtra>> {
  const cfg = parseRredcotConfig(config);
  const meter = new CostMeter();
  const { tokens } = inputs;
  const ep = exitPoints(trace, segments, tokens);
  const K = segments.length;
  const refs = buildReferenceSet(inputs.references ?? {}, cfg.referenceSource, tokens, cfg.maxReferences);

  if (refs.length === 0) {
    if (cfg.emptyReferences === 'error') {
      throw new UserError(`rredcot: trace '${trace.problemId}' has no references for referenceSource '${cfg.referenceSource}' (set emptyReferences: 'uniform' to fall back to Eq. 12)`);
    }
    return {
      method: 'rredcot',
      credits: new Array<number>(K).fill(NaN),
      sigma: normalizeCredits(new Array<number>(K).fill(NaN), 'uniform', { tau: cfg.tau, segmentLengths: ep.segmentLengths }),
      extra: { logImmediate: null, logValue: null, logValues: [], referenceCount: 0, distinctAnswerCount: 0, requestCount: 0, noReferences: true, config: cfg },
      cost: meter.finish(),
    };
  }

  const answers = distinctAnswers(refs);
  const immediateSuffixes = cfg.terms === 'value' ? [] : answers.map((y) => [tokens.endThink, ...y, tokens.eos]);
  const valueSuffixes = cfg.terms === 'immediate' ? [] : refs.map((r) => [...r.solution, tokens.endThink, ...r.answer, tokens.eos]);
  const suffixes = [...immediateSuffixes, ...valueSuffixes];

  // sums[k][i] = log p(suffix_i | s_k)
  const sums = await scoreAllExitPoints(model, ep.sequence, ep.exitAt, suffixes, cfg.scoring, meter);

  const nI = immediateSuffixes.length;
  const logImmediate = nI ? sums.map((row) => logSumExp(row.slice(0, nI))) : null; // Eq. 7
  const logValue = valueSuffixes.length ? sums.map((row) => logSumExp(row.slice(nI)) - Math.log(valueSuffixes.length)) : null; // Eq. 9
  const logValues = ep.exitAt.map((_, k) =>
    logImmediate && logValue ? logAddExp(logImmediate[k], logValue[k]) : (logImmediate ?? logValue)![k],
  );
  logValues.forEach((lv, k) => {
    if (Number.isNaN(lv) || (cfg.space === 'log' && !Number.isFinite(lv))) {
      throw new Error(`rredcot: trace '${trace.problemId}': log v̂(s_${k}) = ${lv}; log-space credits need every reference probability > 0`);
    }
  });

  const credits = segments.map((_, i) =>
    cfg.space === 'log' ? logValues[i + 1] - logValues[i] : Math.exp(logValues[i + 1]) - Math.exp(logValues[i]),
  );
  return {
    method: 'rredcot',
    credits,
    values: logValues.map(Math.exp),
    sigma: normalizeCredits(credits, cfg.normalization, { tau: cfg.tau, segmentLengths: ep.segmentLengths }),
    extra: {
      logImmediate,
      logValue,
      logValues,
      referenceCount: refs.length,
      distinctAnswerCount: answers.length,
      requestCount: ep.exitAt.length * suffixes.length,
      noReferences: false,
      config: cfg,
    },
    cost: meter.finish(),
  };
}

/** log p(suffix_i | first exitAt[k] tokens) for every exit point k and suffix i: [K+1][S]. */
async function scoreAllExitPoints(
  model: LanguageModel,
  sequence: number[],
  exitAt: number[],
  suffixes: number[][],
  scoring: RredcotConfig['scoring'],
  meter: CostMeter,
): Promise<number[][]> {
  const last = exitAt[exitAt.length - 1];
  const longest = Math.max(...suffixes.map((s) => s.length));
  if (last + longest > model.maxLength) {
    throw new UserError(`rredcot: exit point at ${last} tokens + reference suffix of ${longest} tokens exceeds the model's maxLength ${model.maxLength}; use shorter references`);
  }
  if (scoring === 'sharedPrefix') {
    // Tokens after the last exit point (the answer) are never a prefix, so they are not forwarded.
    const requests: SuffixRequest[] = exitAt.flatMap((at) => suffixes.map((suffix) => ({ exitAt: at, suffix })));
    const res = await model.scoreAfterPrefixes(sequence.slice(0, last), requests);
    meter.add(res.cost);
    checkShape(res.logprobs, requests);
    return exitAt.map((_, k) => suffixes.map((_, i) => sumLogprobs(res.logprobs[k * suffixes.length + i])));
  }
  const out: number[][] = [];
  for (const at of exitAt) {
    const requests = suffixes.map((suffix) => ({ exitAt: at, suffix }));
    const res = await model.scoreAfterPrefixes(sequence.slice(0, at), requests);
    meter.add(res.cost);
    checkShape(res.logprobs, requests);
    out.push(res.logprobs.map(sumLogprobs));
  }
  return out;
}

function checkShape(logprobs: number[][], requests: SuffixRequest[]): void {
  if (logprobs.length !== requests.length || logprobs.some((lp, i) => lp.length !== requests[i].suffix.length)) {
    throw new Error(`rredcot: model returned ${logprobs.length} score rows for ${requests.length} requests or rows of the wrong length`);
  }
}
