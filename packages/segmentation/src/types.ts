/**
 * A segment u_k of a trace's thinking span: completion positions [start, end), half-open.
 * Segments returned for a trace are contiguous, non-overlapping and cover [0, trace.thinkEnd)
 * exactly. Exit point k (k = 1..K) is the state after segment k: the first
 * `trace.prompt.length + segments[k-1].end` tokens of prompt ++ completion; exit point 0 is the
 * prompt alone.
 */
export interface Segment {
  start: number;
  end: number;
}
