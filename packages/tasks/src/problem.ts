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
 * question asks for `query`, the last variable, on which every other variable depends.
 */
export interface Problem {
  steps: Step[];
  query: string;
  modulus: number;
}

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

/** The unique final answer, as text. */
export function answerOf(problem: Problem): string {
  const v = evaluate(problem).get(problem.query);
  if (v === undefined) throw new Error(`query ${problem.query} is not defined`);
  return String(v);
}

function operandText(o: Operand): string {
  return o.kind === 'num' ? String(o.value) : o.name;
}

/** Prompt text, e.g. `a=3+4;b=a*2;c=5+b;?c`. */
export function problemText(problem: Problem): string {
  return `${problem.steps.map((s) => `${s.name}=${operandText(s.left)}${s.op}${operandText(s.right)}`).join(';')};?${problem.query}`;
}

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
  if (!/^\?[a-z]$/.test(last)) fail(`expected the text to end with ';?<variable>'`);
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
  const query = last.slice(1);
  if (!defined.has(query)) fail(`queried variable ${query} is not defined`);
  return { steps, query, modulus };
}
