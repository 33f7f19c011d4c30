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
 * One estimator output for one segment: `value` = v̂ at the exit point after the segment,
 * `credit` = r_k (Eq. 5–8), `sigma` = σ_k (Eq. 11). `segment` indexes the trace's segments;
 * -1 denotes exit point 0 (the prompt alone), which has a value but no credit.
 */
export interface EstimateRecord {
  segment: number;
  method: string;
  value?: number | null;
  credit?: number | null;
  sigma?: number | null;
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
  costs?: CostRecord[];
}

export interface StoredTrace {
  key: string;
  trace: Required<Omit<TraceData, 'logprobs' | 'entropies'>> & { logprobs: number[] | null; entropies: number[] | null };
  checkpointHash: string | null;
  segments: SegmentRecord[];
  estimates: Required<EstimateRecord>[];
  costs: CostRecord[];
}
