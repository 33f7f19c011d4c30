import { evaluate, type Operand, type Problem } from './problem';
import { CORRECTION_MARKER, LINE_SEPARATOR } from './solution';

/**
 * The task's exact step oracle: which line of a trace's thinking is the first one that puts the trace on
 * a wrong track and stays uncorrected. No real benchmark has this; the gold-value credit benchmark (issue
 * 13) scores a credit method by whether its most negative credit lands on that line's segment.
 *
 * Definition (the state of a trace is the value it holds for each variable):
 * - The true value of every variable comes from the problem (`evaluate`), not from the trace.
 * - The thinking is split on the line separator; each line is judged alone. An empty line is skipped (it
 *   assigns nothing, e.g. a trailing newline).
 * - A well-formed line, `b=7-2=5` or a correction `wait b=7-2=5`, assigns the value after its last `=` to
 *   its variable. It is wrong when that value differs from the variable's true value (compared as numbers,
 *   so `05` equals `5`; an unreduced `10` for a true `0` is wrong). This covers a wrong result
 *   (`wrong-result`: the operands and operator are the problem's, the arithmetic is wrong), a wrong copied
 *   operand (`wrong-operand`: an operand differs from its true value, whether miscopied or propagated
 *   from an earlier wrong line) and a wrong operator (`wrong-operator`).
 * - A line whose value is right is not an error, even when an operand was miscopied and the modulus
 *   cancelled it (`b=7-2=5` written `b=17-12=5`, or `c=3+8=1` for `c=3+18=1` mod 10): the state after the
 *   line is the true state, so the chance of answering correctly from there — the value V(s_k) the credit
 *   methods estimate — does not fall at that line, and blaming it would score a method against a drop
 *   that is not there.
 * - A wrong line is corrected when a LATER `wait` line assigns the same variable its true value (before
 *   the thinking ends). A later plain line recomputing the variable does not count: the task's correction
 *   form is `wait <line>`. The first uncorrected error is the earliest wrong line not corrected.
 * - A non-empty line that does not parse (`malformed`: e.g. `b=7-`, the partial last line of a truncated
 *   trace, or garbage) is an error that nothing corrects: it names no value the oracle can check, and the
 *   trace has left the task's format there. A well-formed line for a variable the problem does not
 *   define (`unknown-variable`) is likewise an uncorrectable error: it has no true value. Callers that
 *   want to leave such traces out filter on `kind`.
 *
 * Composite queries (`?c,f`) change nothing here: the oracle judges the thinking, whose variables and
 * true values are those of the same steps.
 */
type StepErrorKind = 'wrong-result' | 'wrong-operand' | 'wrong-operator' | 'malformed' | 'unknown-variable';

interface StepError {
  /** Index of the line in `thinking.split('\n')` (empty lines included in the count). */
  line: number;
  /** Character span [start, end) of the line in the thinking text, without its newline (with `wait ` when it is a correction). */
  start: number;
  end: number;
  kind: StepErrorKind;
  /** The variable the line assigns; null for a malformed line. */
  variable: string | null;
}

const LINE_RE = new RegExp(`^(${CORRECTION_MARKER} )?([a-z])=(\\d+)([+\\-*])(\\d+)=(\\d+)$`);

/**
 * What one non-empty line of a trace assigns: its variable, operands, operator and value, and whether it
 * is a `wait` correction; 'none' for a line that assigns nothing (a restatement of a free-form trace);
 * null for a line that does not parse (malformed).
 */
export type ReadLine = (
  text: string,
) => { correction: boolean; variable: string; left: number; op: string; right: number; value: number } | 'none' | null;

/** The task's notation: `b=7-2=5`, or `wait b=7-2=5`. */
const readNotationLine: ReadLine = (text) => {
  const m = LINE_RE.exec(text);
  if (!m) return null;
  const [, marker, variable, left, op, right, value] = m;
  return { correction: marker !== undefined, variable, left: Number(left), op, right: Number(right), value: Number(value) };
};

interface JudgedLine {
  line: number;
  start: number;
  end: number;
  correction: boolean;
  variable: string | null;
  /** Whether the line assigns its variable the true value. */
  right: boolean;
  kind: StepErrorKind | null;
}

/** Every non-empty line of `thinking` with its verdict, in order; `read` says what a line assigns. */
function judgeLines(problem: Problem, thinking: string, read: ReadLine): JudgedLine[] {
  const truth = evaluate(problem);
  const steps = new Map(problem.steps.map((s) => [s.name, s]));
  const operandValue = (o: Operand): number => (o.kind === 'num' ? o.value : (truth.get(o.name) as number));
  const judged: JudgedLine[] = [];
  let start = 0;
  thinking.split(LINE_SEPARATOR).forEach((text, line) => {
    const at = { line, start, end: start + text.length };
    start = at.end + LINE_SEPARATOR.length;
    if (text.length === 0) return;
    const m = read(text);
    if (m === 'none') return;
    if (m === null) {
      judged.push({ ...at, correction: false, variable: null, right: false, kind: 'malformed' });
      return;
    }
    const { correction, variable, left, op, right, value } = m;
    const step = steps.get(variable);
    if (!step) {
      judged.push({ ...at, correction, variable, right: false, kind: 'unknown-variable' });
      return;
    }
    if (value === truth.get(variable)) {
      judged.push({ ...at, correction, variable, right: true, kind: null });
      return;
    }
    const operandsRight = left === operandValue(step.left) && right === operandValue(step.right);
    const kind = !operandsRight ? 'wrong-operand' : op !== step.op ? 'wrong-operator' : 'wrong-result';
    judged.push({ ...at, correction, variable, right: false, kind });
  });
  return judged;
}

/**
 * The first uncorrected wrong line of `thinking` (the text between `<think>` and `</think>`, or the whole
 * completion when the trace never closed its thinking), or null when every wrong line is corrected.
 * See the definition above. `read` reads a line (default: the task's notation; the free-form bed passes
 * its own reader, under which a line that assigns nothing is skipped like an empty one).
 */
export function firstUncorrectedError(problem: Problem, thinking: string, read: ReadLine = readNotationLine): StepError | null {
  const lines = judgeLines(problem, thinking, read);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.kind === null) continue;
    const corrected =
      l.kind !== 'malformed' &&
      l.kind !== 'unknown-variable' &&
      lines.slice(i + 1).some((later) => later.correction && later.right && later.variable === l.variable);
    if (!corrected) return { line: l.line, start: l.start, end: l.end, kind: l.kind, variable: l.variable };
  }
  return null;
}

/**
 * Maps a character span [start, end) of a decoded text to the span [first, last) of the tokens that cover
 * it, given each token's decoded text in order (`ids.map((id) => tokenizer.tokenText(id))`). For the
 * thinking of a trace the text is the decoded completion (the thinking is its prefix [0, thinkEnd)), so
 * the result indexes the completion. With the task's character-level tokenizer a token is one character
 * and the spans coincide, unless a special token (written as a literal like `<eos>`) sits in the
 * thinking: that is why the texts are taken, not assumed. A token partly inside the span counts as
 * covering it. Throws RangeError for an empty span or one outside the text.
 */
export function tokenSpanOfChars(tokenTexts: readonly string[], start: number, end: number): [number, number] {
  const length = tokenTexts.reduce((n, t) => n + t.length, 0);
  if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start < end && end <= length)) {
    throw new RangeError(`tokenSpanOfChars: span [${start}, ${end}) must be non-empty and inside the text of ${length} characters`);
  }
  let first = -1;
  let offset = 0;
  for (let i = 0; i < tokenTexts.length; i++) {
    const next = offset + tokenTexts[i].length;
    if (first < 0 && next > start) first = i;
    if (next >= end) return [first, i + 1];
    offset = next;
  }
  throw new Error('tokenSpanOfChars: unreachable');
}
