import type { Reference } from '@rred/estimators';
import type { Tokenizer } from '@rred/lm';
import type { TaskRecord } from '@rred/tasks';

/**
 * The dataset reference pairs (u*, y*) of Eq. 9 for the task's problems: each record's solution and
 * its alternative solution orders (`meta.alternativeSolutions`), at most `limit` of them, tokenized
 * once per problem and cached.
 */
export function taskReferences(records: readonly TaskRecord[], tokenizer: Tokenizer, limit = Number.POSITIVE_INFINITY): (problemId: string) => Reference[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const cache = new Map<string, Reference[]>();
  return (problemId) => {
    let refs = cache.get(problemId);
    if (!refs) {
      const r = byId.get(problemId);
      if (!r) throw new Error(`dataset references: no record '${problemId}' among the ${records.length} task records`);
      const alternatives = Array.isArray(r.meta.alternativeSolutions) ? (r.meta.alternativeSolutions as string[]) : [];
      refs = [r.solution, ...alternatives].slice(0, limit).map((s) => ({ solution: tokenizer.encode(s), answer: tokenizer.encode(r.answer) }));
      cache.set(problemId, refs);
    }
    return refs;
  };
}
