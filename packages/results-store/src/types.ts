import type { RunContext } from './context';

export type RunStatus = 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';
export const RUN_STATUSES: readonly RunStatus[] = ['RUNNING', 'FINISHED', 'FAILED', 'KILLED'];

/** A run row plus its params, the last value of each metric, and its tags. */
export interface RunSummary {
  id: string;
  experiment: string;
  name: string;
  status: RunStatus;
  /** Epoch ms. */
  startTime: number;
  endTime: number | null;
  heartbeatTime: number;
  parentRunId: string | null;
  configHash: string;
  seed: number | null;
  pid: number;
  hostname: string;
  /** 1 + number of resumes. */
  attempts: number;
  /** Message recorded when the run failed or was killed. */
  failure: string | null;
  /** Flattened config and any extra params, values as JSON text (strings unquoted). */
  params: Record<string, string>;
  /** Value at the highest step of each metric key. */
  metrics: Record<string, number | null>;
  tags: Record<string, string>;
}

export interface ArtifactRecord {
  path: string;
  sha256: string;
  bytes: number;
  createdAt: number;
}

export interface RunDetail extends RunSummary {
  config: unknown;
  context: RunContext;
  artifacts: ArtifactRecord[];
}

export interface MetricPoint {
  step: number;
  value: number | null;
  wallTime: number;
}

/** The parts of an `@rred/lm` Trace the store keeps (a Trace is assignable to this). */
export interface TraceData {
  problemId: string;
  prompt: number[];
  completion: number[];
  thinkEnd: number;
  logprobs?: number[];
  entropies?: number[];
  answer: string | null;
  text: string;
  reward: number;
}

export interface SegmentRecord {
  start: number;
  end: number;
}

/**
 * One estimator output at one exit point, in the estimators' convention: exit point k = 0..K is the
 * state s_k after the first k segments (s_0 = the prompt alone, s_K = the whole thinking). `value` =
 * v̂(s_k); `credit` = r_k (Eq. 5–8) and `sigma` = σ_k of segment k, the segment that ends at
 * exit point k (so exit point 0 has a value but no credit). `segments[k − 1]` is that segment's span.
 * `sigma` is the σ the estimator reports without an advantage (its config's `normalization` and τ, literal
 * sign, raw credits: `reportedSigmaConfig` in estimators/src/sigma.ts), not the σ a GRPO run trains with,
 * which also depends on the completion's advantage and the run's σ config; `rred export-weights` computes
 * that one from the stored credits (`traceSigma`).
 */
export interface EstimateRecord {
  exitPoint: number;
  method: string;
  value?: number | null;
  credit?: number | null;
  sigma?: number | null;
}

/**
 * One Monte-Carlo continuation sampled from exit point `exitPoint` (0..K), the `sample`-th (0-based)
 * of that exit point. `utility` = ζ used in V_MC (the reward of a finished continuation, 0 for a
 * truncated one); `length` = tokens generated (incl. `<eos>`); `truncated` = cut by its limit;
 * `offset` = completion tokens before the exit point (|u_1..u_k|, must match the segments);
 * `limit` = the token limit it was sampled under (≤ 0 when the thinking already used the horizon).
 */
export interface ContinuationRow {
  exitPoint: number;
  sample: number;
  offset: number;
  limit: number;
  length: number;
  truncated: boolean;
  utility: number;
}

export interface CostRecord {
  method: string;
  tokensForwarded: number;
  tokensGenerated: number;
  forwardPasses: number;
  wallMs: number;
}

/** Everything about one trace, written in one transaction by `writeTraceBundle`. */
export interface TraceBundle {
  /** Unique within the run; re-writing the same key replaces the earlier bundle (resume-safe). */
  key: string;
  trace: TraceData;
  /** Hash of the model checkpoint that produced the trace. */
  checkpointHash?: string | null;
  segments: SegmentRecord[];
  estimates?: EstimateRecord[];
  /** MC continuations behind the trace's MC values (mc-variance keeps them for its analyses). */
  continuations?: ContinuationRow[];
  costs?: CostRecord[];
}

export interface StoredTrace {
  key: string;
  trace: Required<Omit<TraceData, 'logprobs' | 'entropies'>> & { logprobs: number[] | null; entropies: number[] | null };
  checkpointHash: string | null;
  segments: SegmentRecord[];
  /** Ordered by method, then exit point. */
  estimates: Required<EstimateRecord>[];
  /** Ordered by exit point, then sample. */
  continuations: ContinuationRow[];
  /** Ordered by method. */
  costs: CostRecord[];
}
