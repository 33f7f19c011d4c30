import { CORRECTION_MARKER, LINE_SEPARATOR } from './solution';

/**
 * The task's subgoal alignment for the value term's `remaining` suffix (paper Sec. 3.2.0.1: a hint of
 * the subgoal structure). A subgoal is a variable; the thinking so far has reached it once it holds a
 * complete line computing it (`b=7-2=5`, or a `wait b=7-2=5` correction), right or wrong. What is left
 * of a reference solution is its lines for the variables not reached yet, in the reference's order and
 * with the reference's (correct) values — so after a wrong line those values disagree with the trace
 * and their probability drops. A reference line that computes no variable (a sampled own reference
 * may hold one, e.g. `w=3`) is no subgoal: it is left out of what remains.
 */
const LINE_RE = new RegExp(`^(?:${CORRECTION_MARKER} )?([a-z])=\\d+[+\\-*]\\d+=\\d+$`);

/** The subgoal (variable) a complete line computes, or null for a line that computes none. */
export type LineSubgoal = (line: string) => string | null;

/** The task's notation: `b=7-2=5` or `wait b=7-2=5` computes b. */
const notationSubgoal: LineSubgoal = (line) => LINE_RE.exec(line)?.[1] ?? null;

/** Variables with a complete line in `thinking`. A last line without its newline counts when it is complete. */
export function reachedSubgoals(thinking: string, subgoal: LineSubgoal = notationSubgoal): Set<string> {
  const reached = new Set<string>();
  for (const line of thinking.split(LINE_SEPARATOR)) {
    const v = subgoal(line);
    if (v !== null) reached.add(v);
  }
  return reached;
}

/**
 * The rest of `reference` after `thinking`: the reference lines whose variable `thinking` has not
 * reached, joined by newlines. When `thinking` ends inside a line (no trailing newline) and lines
 * remain, the rest starts with a newline, so the result is always `thinking ++ rest` in the solution
 * format; exit points on line boundaries (newline / hybrid segmentation) never need it for a partial
 * line. Empty when every subgoal is reached: the value suffix is then `</think> y* <eos>`.
 */
export function remainingSolution(thinking: string, reference: string, subgoal: LineSubgoal = notationSubgoal): string {
  const reached = reachedSubgoals(thinking, subgoal);
  const rest = reference.split(LINE_SEPARATOR).filter((line) => {
    const v = subgoal(line);
    return v !== null && !reached.has(v);
  });
  if (rest.length === 0) return '';
  const separator = thinking.length > 0 && !thinking.endsWith(LINE_SEPARATOR) ? LINE_SEPARATOR : '';
  return separator + rest.join(LINE_SEPARATOR);
}

/** Text ↔ token ids of the model (the lm tokenizer satisfies it). */
interface TextCodec {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/**
 * `remainingSolution` on token ids, in the shape the RREDCoT estimator takes as its reference
 * alignment: (thinking tokens so far, reference solution tokens) → the remaining solution tokens. `subgoal`
 * reads a line (default: the task's notation; the free-form bed passes its own reader).
 */
export function remainingAlignment(
  codec: TextCodec,
  subgoal: LineSubgoal = notationSubgoal,
): (thinking: readonly number[], solution: readonly number[]) => number[] {
  return (thinking, solution) => codec.encode(remainingSolution(codec.decode(thinking), codec.decode(solution), subgoal));
}
