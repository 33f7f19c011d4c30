import { UserError } from '@rred/core';
import type { Operator } from './config';

/** A literal number or a reference to an earlier variable. */
export type Operand = { kind: 'num'; value: number } | { kind: 'var'; name: string };

/** One definition `name = left op right`. */
export interface Step {
  name: string;
  left: Operand;
  op: Operator;
  right: Operand;
}

/**
 * A problem: variables defined in a topological order (each refers only to earlier ones); the
 * question asks for `queries`, in definition order. The single-answer form asks for the last variable
 * only (`?f`), on which every other variable depends; the composite form (`?c,f`) also asks for one or
 * more earlier ones, so the answer has parts that are each right or wrong (paper Sec. 3.2.0.1: a
 * composite answer reveals the subgoals).
 */
export interface Problem {
  steps: Step[];
  /** One name (single answer) or several, in definition order, the last variable last. */
  queries: string[];
  modulus: number;
}

/** Separates the parts of a composite query (`?c,f`) and of its answer (`6,9`). */
export const ANSWER_PART_SEPARATOR = ',';

/** Non-negative remainder, so `3-7` mod 10 is 6. */
export function applyOp(op: Operator, x: number, y: number, modulus: number): number {
  const raw = op === '+' ? x + y : op === '-' ? x - y : x * y;
  return ((raw % modulus) + modulus) % modulus;
}

/** Value of every variable, by name. */
export function evaluate(problem: Problem): Map<string, number> {
  const values = new Map<string, number>();
  const read = (o: Operand): number => {
    if (o.kind === 'num') return o.value;
    const v = values.get(o.name);
    if (v === undefined) throw new Error(`variable ${o.name} used before definition`);
    return v;
  };
  for (const s of problem.steps) values.set(s.name, applyOp(s.op, read(s.left), read(s.right), problem.modulus));
  return values;
}

/** The unique final answer, as text: the queried values joined by `,` (`0`, or `6,9` for `?c,f`). */
export function answerOf(problem: Problem): string {
  const values = evaluate(problem);
  return problem.queries
    .map((q) => {
      const v = values.get(q);
      if (v === undefined) throw new Error(`query ${q} is not defined`);
      return String(v);
    })
    .join(ANSWER_PART_SEPARATOR);
}

function operandText(o: Operand): string {
  return o.kind === 'num' ? String(o.value) : o.name;
}

/** Prompt text, e.g. `a=3+4;b=a*2;c=5+b;?c`. */
export function problemText(problem: Problem): string {
  return `${problem.steps.map((s) => `${s.name}=${operandText(s.left)}${s.op}${operandText(s.right)}`).join(';')};?${problem.queries.join(ANSWER_PART_SEPARATOR)}`;
}

/** Alias for clarity at call sites that build the model's input: the prompt is the problem text. */
export const promptText = problemText;

/** Indices of the steps that step i reads. */
export function dependencies(problem: Problem): number[][] {
  const index = new Map(problem.steps.map((s, i) => [s.name, i]));
  return problem.steps.map((s) =>
    [s.left, s.right].flatMap((o) => (o.kind === 'var' ? [index.get(o.name) as number] : [])).filter((v, i, a) => a.indexOf(v) === i),
  );
}

const STEP_RE = /^([a-z])=([a-z]|\d+)([+\-*])([a-z]|\d+)$/;

/**
 * Parses a problem text back into a Problem (e.g. from a JSONL record). Throws UserError naming
 * `source` for text that is not in the task format.
 */
export function parseProblem(text: string, modulus: number, source = 'problem'): Problem {
  const parts = text.split(';');
  const last = parts.pop() ?? '';
  const fail = (why: string): never => {
    throw new UserError(`${source}: not a task problem (${why}): ${JSON.stringify(text)}`);
  };
  if (!/^\?[a-z](,[a-z])*$/.test(last)) fail(`expected the text to end with ';?<variable>' or ';?<variable>,<variable>,...'`);
  const steps: Step[] = [];
  const defined = new Set<string>();
  for (const part of parts) {
    const m = STEP_RE.exec(part);
    if (!m) return fail(`step ${JSON.stringify(part)} is not '<var>=<operand><op><operand>'`);
    const [, name, l, op, r] = m;
    if (defined.has(name)) fail(`variable ${name} defined twice`);
    const operand = (t: string): Operand => {
      if (/^\d+$/.test(t)) return { kind: 'num', value: Number(t) };
      if (!defined.has(t)) fail(`variable ${t} used before its definition`);
      return { kind: 'var', name: t };
    };
    steps.push({ name, left: operand(l), op: op as Operator, right: operand(r) });
    defined.add(name);
  }
  const queries = last.slice(1).split(ANSWER_PART_SEPARATOR);
  for (const q of queries) if (!defined.has(q)) fail(`queried variable ${q} is not defined`);
  const order = queries.map((q) => steps.findIndex((s) => s.name === q));
  if (order.some((v, i) => i > 0 && v <= order[i - 1])) fail('queried variables must be distinct and in definition order');
  return { steps, queries, modulus };
}
