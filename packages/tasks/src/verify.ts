/**
 * The verifier ζ (paper Eq. 1, utility of the final answer): 1 for the expected answer after
 * `</think>`, 0 otherwise, with the reason. Never throws on model output.
 *
 * The lm side decodes special tokens as the literal strings below, so the verifier reads the
 * decoded completion text (everything generated after the prompt's `<think>`).
 */
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const END_OF_SEQUENCE = '<eos>';
const SPECIAL_TOKEN_RE = /<\/?[a-z]+>/;

type VerifyReason = 'correct' | 'wrong' | 'no-answer' | 'malformed' | 'truncated';

interface VerifyResult {
  reward: 0 | 1;
  reason: VerifyReason;
  /** The extracted answer text (null when there is none to extract). */
  answer: string | null;
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

/**
 * Judges a completion:
 * - `truncated`: generation hit its length limit (`stopped` false): reward 0 whatever it contains;
 * - `malformed`: no `</think>`, more than one, a `<think>` inside the completion, another special
 *   token in the answer, text after `<eos>`, or an answer that is not an integer when an integer is
 *   expected;
 * - `no-answer`: `</think>` present but nothing (or only whitespace) before `<eos>`;
 * - `correct` / `wrong`: an integer answer compares by value (so `09` equals `9`); any other
 *   expected answer (external datasets) compares as whitespace-trimmed text.
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
  let same: boolean;
  if (INTEGER_RE.test(expected)) {
    if (!INTEGER_RE.test(answer)) return malformed(answer);
    same = BigInt(answer) === BigInt(expected);
  } else {
    same = answer === expected;
  }
  return same ? { reward: 1, reason: 'correct', answer } : { reward: 0, reason: 'wrong', answer };
}
