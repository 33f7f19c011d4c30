import type { TaskRecord } from '../dataset';
import { LINE_SEPARATOR } from '../solution';
import { parseProseLine } from './parse';

/**
 * The phrasing bars of the free-form bed, on T = 1 samples: the model's lines must really vary, and its
 * order of independent steps must really differ from the reference's, or the bed tests nothing a
 * notation bed does not. Kinds of line: a step per operator (`+`, `-`, `*`), a restatement, a `wait`
 * correction (its opening). The lm bars: in 200 samples every kind that occurs shows ≥ 4 templates,
 * and ≥ 30 % of traces order two of their steps otherwise than the reference.
 */
export const PHRASING_BARS = { samples: 200, templatesPerKind: 4, reorderedShare: 0.3 } as const;

/** The kinds of line every trace set is scored on (0 templates when none occurs); `*` counts only when seen (off in the shipped splits). */
const KINDS = ['+', '-', 'restate', 'correction'];

interface PhrasingVariety {
  /** Distinct templates seen per kind of line: `+`, `-`, restate, correction always (0 when none occurs), `*` when seen. */
  templates: Record<string, number>;
  /** Share of traces with two computed variables in the opposite order from the reference solution. */
  reorderedShare: number;
  /** Share of non-empty thinking lines in none of the bed's templates (the model left its phrasings). */
  unreadLineShare: number;
  traces: number;
}

/** The variables of a text's step lines (plain steps and reference lines; corrections left out), first occurrences in order. */
function stepOrder(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(LINE_SEPARATOR)) {
    const p = parseProseLine(line);
    if (p && (p.kind === 'reference' || (p.kind === 'step' && p.correction === null)) && !out.includes(p.variable)) out.push(p.variable);
  }
  return out;
}

/** The phrasing measures of `samples` (each the thinking of one trace of `record`, a free-form record). */
export function phrasingVariety(samples: readonly { record: TaskRecord; thinking: string }[]): PhrasingVariety {
  const seen = new Map<string, Set<number>>(KINDS.map((k) => [k, new Set<number>()]));
  const add = (kind: string, template: number) => seen.set(kind, (seen.get(kind) ?? new Set()).add(template));
  let lines = 0;
  let unread = 0;
  let reordered = 0;
  for (const { record, thinking } of samples) {
    for (const line of thinking.split(LINE_SEPARATOR)) {
      if (line.trim() === '') continue;
      lines++;
      const p = parseProseLine(line);
      if (p === null || p.kind === 'reference') unread++;
      else if (p.kind === 'restate') add('restate', p.template);
      else {
        add(p.op, p.template);
        if (p.correction !== null) add('correction', p.correction);
      }
    }
    const rank = new Map(stepOrder(record.solution).map((v, i) => [v, i]));
    const mine = stepOrder(thinking).filter((v) => rank.has(v));
    if (mine.some((v, i) => i > 0 && rank.get(v)! < rank.get(mine[i - 1])!)) reordered++;
  }
  return {
    templates: Object.fromEntries([...seen].map(([kind, set]) => [kind, set.size])),
    reorderedShare: samples.length === 0 ? NaN : reordered / samples.length,
    unreadLineShare: lines === 0 ? NaN : unread / lines,
    traces: samples.length,
  };
}
