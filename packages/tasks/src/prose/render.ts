import { OPERATORS, VARIABLE_NAMES } from '../config';
import type { Operand, Problem } from '../problem';
import { LINE_SEPARATOR, traceSteps } from '../solution';
import { CORRECTION_PREFIXES, OPERATOR_WORDS, REFERENCE_TEMPLATE, RESTATE_TEMPLATES, STEP_TEMPLATES, fill } from './templates';

function operandWord(o: Operand): string {
  return o.kind === 'num' ? String(o.value) : o.name;
}

/** `c`, `c and f`, `b, c and f`. */
export function listWords(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The problem as sentences: `Let a be 4 plus 3. Let b be a plus 8. What is b?` (`What are c and f?` for a composite query). */
export function proseProblemText(problem: Problem): string {
  const steps = problem.steps.map((s) => `Let ${s.name} be ${operandWord(s.left)} ${OPERATOR_WORDS[s.op]} ${operandWord(s.right)}.`);
  const question = problem.queries.length === 1 ? `What is ${problem.queries[0]}?` : `What are ${listWords(problem.queries)}?`;
  return [...steps, question].join(' ');
}

/** The dataset's reference solution in `order`: `Step 1. a = 4 + 3 = 7.` one line per step, the values substituted. */
export function proseReference(problem: Problem, order: readonly number[]): string {
  return traceSteps(problem, order)
    .map((s, i) => fill(REFERENCE_TEMPLATE, { k: i + 1, x: s.name, l: s.left, op: s.op, r: s.right, v: s.result }))
    .join(LINE_SEPARATOR);
}

/** Every template text and fixed word the prose texts are made of (problem, solutions, references). */
function allTexts(): string[] {
  return [
    ...Object.values(STEP_TEMPLATES).flat(),
    ...RESTATE_TEMPLATES,
    ...CORRECTION_PREFIXES,
    REFERENCE_TEMPLATE,
    'Let be What is are and ?',
    ...Object.values(OPERATOR_WORDS),
  ].map((t) => t.replace(/\{[a-z]+\}/g, ' '));
}

/**
 * The vocabulary of the free-form bed's tokenizer (@rred/lm `Tokenizer.fromPieces`), in id order: every
 * character the prose texts can contain (so any text of them encodes), then each word of the templates,
 * each variable name, digit and operator sign with a leading space, and each word of two or more letters
 * bare (sentence starts), each also lower-cased (after a correction's opening). Digits stay single tokens; a sentence of the solution is ~10 tokens.
 */
export function prosePieces(): string[] {
  const texts = allTexts();
  const chars = new Set<string>([...'0123456789', ...VARIABLE_NAMES, ...OPERATORS, LINE_SEPARATOR, ' ', '.', ',', ':', '?', '=']);
  for (const t of texts) for (const ch of t) chars.add(ch);
  const words = new Set<string>();
  for (const t of texts) for (const w of t.match(/[A-Za-z]{2,}/g) ?? []) words.add(w).add(w.toLowerCase()); // lower: after a correction opening
  const sortedWords = [...words].sort();
  const spaced = [...VARIABLE_NAMES, ...'0123456789', ...OPERATORS, '=', ...sortedWords].map((w) => ` ${w}`);
  return [...[...chars].sort(), ...sortedWords, ...spaced];
}
