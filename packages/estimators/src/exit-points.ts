/**
 * Exit points of a segmented trace. Exit point k (k = 0..K) is the state s_k = (x, u_1..u_k): the
 * first `prompt.length + segments[k-1].end` tokens of `prompt ++ completion` (s_0 = the prompt).
 * Inputs are checked here once, so every estimator can trust them.
 */
import { UserError } from '@rred/core';
import type { Trace } from '@rred/lm';
import type { Segment } from '@rred/segmentation';
import type { SpecialTokens } from './types';

interface ExitPoints {
  /** prompt ++ completion. */
  sequence: number[];
  /** exitAt[k] = length of the prefix that is state s_k, k = 0..K. */
  exitAt: number[];
  /** Token count of each segment, k = 1..K (index k-1). */
  segmentLengths: number[];
}

/** Validates trace + segments (contiguous, non-overlapping, covering [0, thinkEnd)) and lists the exit points. */
export function exitPoints(trace: Trace, segments: readonly Segment[], tokens: SpecialTokens): ExitPoints {
  const where = `trace '${trace.problemId}'`;
  const T = trace.completion.length;
  if (trace.prompt.length < 1) throw new UserError(`${where}: prompt is empty; exit point 0 needs at least one token`);
  if (!Number.isInteger(trace.thinkEnd) || trace.thinkEnd < 0 || trace.thinkEnd > T) {
    throw new UserError(`${where}: thinkEnd ${trace.thinkEnd} is outside [0, completion.length=${T}]`);
  }
  if (trace.thinkEnd < T && trace.completion[trace.thinkEnd] !== tokens.endThink) {
    throw new UserError(
      `${where}: completion[thinkEnd=${trace.thinkEnd}] is token ${trace.completion[trace.thinkEnd]}, expected </think> (${tokens.endThink})`,
    );
  }
  let cursor = 0;
  segments.forEach((seg, i) => {
    if (!Number.isInteger(seg.start) || !Number.isInteger(seg.end) || seg.start !== cursor || seg.end <= seg.start) {
      throw new UserError(
        `${where}: segment ${i + 1} is [${seg.start}, ${seg.end}); expected a non-empty span starting at ${cursor} (segments must be contiguous)`,
      );
    }
    cursor = seg.end;
  });
  if (cursor !== trace.thinkEnd) {
    throw new UserError(`${where}: segments cover [0, ${cursor}) but the thinking span is [0, ${trace.thinkEnd})`);
  }
  const P = trace.prompt.length;
  return {
    sequence: [...trace.prompt, ...trace.completion],
    exitAt: [P, ...segments.map((s) => P + s.end)],
    segmentLengths: segments.map((s) => s.end - s.start),
  };
}
