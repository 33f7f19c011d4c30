/**
 * The verifier ζ (paper Eq. 1, utility of the final answer): 1 for the expected answer after
 * `</think>`, 0 otherwise, with the reason. Never throws on model output.
 *
 * The lm side decodes special tokens as the literal strings below, so the verifier reads the
 * decoded completion text (everything generated after the prompt's `<think>`).
 */
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';
export const END_OF_SEQUENCE = '<eos>';
const SPECIAL_TOKEN_RE = /<\/?[a-z]+>/;

export type VerifyReason = 'correct' | 'wrong' | 'no-answer' | 'malformed' | 'truncated';

export interface VerifyResult {
  reward: 0 | 1;
  reason: VerifyReason;
  /** The extracted answer text (null when there is none to extract). */
  answer: string | null;
  /**
   * Composite answers only (expected `6,9`): whether each expected part was given and right, in order;
   * a missing part counts as not right. Absent for single answers.
   */
  parts?: boolean[];
}

/**
 * The answer text between `</think>` and `<eos>` (or the end of the text), trimmed; null when the
 * completion never closed its thinking. Does not judge the format; see `verify`.
 */
export function extractAnswer(completionText: string): string | null {
  const close = completionText.indexOf(THINK_CLOSE);
  if (close < 0) return null;
  const rest = completionText.slice(close + THINK_CLOSE.length);
  const eos = rest.indexOf(END_OF_SEQUENCE);
  return (eos < 0 ? rest : rest.slice(0, eos)).trim();
}

const INTEGER_RE = /^-?\d+$/;
/** A composite answer: two or more integers separated by `,` (see ANSWER_PART_SEPARATOR). */
const COMPOSITE_RE = /^-?\d+(,-?\d+)+$/;

function sameInteger(a: string, b: string): boolean {
  return BigInt(a) === BigInt(b);
}

/**
 * Composite answers part by part: each part is an integer (whitespace around a part is allowed), the
 * count must equal the expected count. Reward 1 only when every part is right.
 */
function verifyComposite(answer: string, expected: string): VerifyResult {
  const want = expected.split(',');
  const got = answer.split(',').map((p) => p.trim());
  const parts = want.map((w, i) => i < got.length && INTEGER_RE.test(got[i]) && sameInteger(got[i], w));
  if (got.some((p) => !INTEGER_RE.test(p)) || got.length !== want.length) return { reward: 0, reason: 'malformed', answer, parts };
  return parts.every(Boolean) ? { reward: 1, reason: 'correct', answer, parts } : { reward: 0, reason: 'wrong', answer, parts };
}

/**
 * Judges a completion:
 * - `truncated`: generation hit its length limit (`stopped` false): reward 0 whatever it contains;
 * - `malformed`: no `</think>`, more than one, a `<think>` inside the completion, another special
 *   token in the answer, text after `<eos>`, or an answer that is not an integer when an integer is
 *   expected;
 * - `no-answer`: `</think>` present but nothing (or only whitespace) before `<eos>`;
 * - `correct` / `wrong`: an integer answer compares by value (so `09` equals `9`); a composite
 *   expected answer (`6,9`) compares part by part and is `malformed` when a part is missing, extra or
 *   not an integer (`parts` says which parts are right); any other expected answer (external datasets)
 *   compares as whitespace-trimmed text.
 */
export function verify(completionText: string, expectedAnswer: string, stopped: boolean): VerifyResult {
  if (!stopped) return { reward: 0, reason: 'truncated', answer: extractAnswer(completionText) };
  const malformed = (answer: string | null = null): VerifyResult => ({ reward: 0, reason: 'malformed', answer });
  const close = completionText.indexOf(THINK_CLOSE);
  if (close < 0 || completionText.indexOf(THINK_CLOSE, close + 1) >= 0) return malformed();
  if (completionText.includes(THINK_OPEN)) return malformed();
  const eos = completionText.indexOf(END_OF_SEQUENCE);
  if (eos >= 0 && eos < close) return malformed();
  if (eos >= 0 && completionText.slice(eos + END_OF_SEQUENCE.length).length > 0) return malformed();
  const answer = extractAnswer(completionText) as string;
  if (SPECIAL_TOKEN_RE.test(answer)) return malformed(answer);
  if (answer.length === 0) return { reward: 0, reason: 'no-answer', answer };
  const expected = expectedAnswer.trim();
  if (COMPOSITE_RE.test(expected)) return verifyComposite(answer, expected);
  let same: boolean;
  if (INTEGER_RE.test(expected)) {
    if (!INTEGER_RE.test(answer)) return malformed(answer);
    same = sameInteger(answer, expected);
  } else {
    same = answer === expected;
  }
  return same ? { reward: 1, reason: 'correct', answer } : { reward: 0, reason: 'wrong', answer };
}
