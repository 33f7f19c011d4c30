import { MAX_LISTED_ALTERNATIVES, problemFromRecord, referenceSolutions } from './build';
import type { TaskRecord } from './dataset';
import { proseReferences } from './prose/build';

/** A reference pair (u*, y*) of Eq. 9 as token ids; the estimators' `Reference` has this shape. */
interface ReferenceTokens {
  solution: number[];
  answer: number[];
}

/** Default `limit`: every solution a record of this task lists (its canonical order and the listed alternatives). */
export const LISTED_REFERENCES = 1 + MAX_LISTED_ALTERNATIVES;

/**
 * The dataset references (u*, y*) of Eq. 9 for one record, tokenized: its solution, then other valid
 * solution orders, at most `limit` in all. The record's own list (`solution`, then
 * `meta.alternativeSolutions`) is used while it suffices; a record of this task that lists fewer than
 * `limit` of its `meta.numValidOrders` orders gets the rest recomputed from its problem (the same
 * enumeration that wrote the list, so the listed ones come first; a free-form record's in its `Step k.`
 * style). Any other record (MATH-500-style
 * JSONL) gives what it lists.
 */
export function referenceTokens(
  record: TaskRecord,
  tokenizer: { encode(text: string): number[] },
  limit = LISTED_REFERENCES,
): ReferenceTokens[] {
  const alternatives = Array.isArray(record.meta.alternativeSolutions) ? (record.meta.alternativeSolutions as string[]) : [];
  const listed = [record.solution, ...alternatives];
  const total = typeof record.meta.numValidOrders === 'number' ? record.meta.numValidOrders : listed.length;
  const texts =
    limit <= listed.length || total <= listed.length
      ? listed.slice(0, limit)
      : record.meta.format === 'prose'
        ? proseReferences(problemFromRecord(record), limit)
        : referenceSolutions(problemFromRecord(record), limit).map((r) => r.solution);
  const answer = tokenizer.encode(record.answer);
  return texts.map((s) => ({ solution: tokenizer.encode(s), answer: answer.slice() }));
}

/**
 * `referenceTokens` for a set of records, looked up by problem id (what the GRPO estimator hook asks for),
 * tokenized once per problem and cached.
 */
export function referencesById(
  records: readonly TaskRecord[],
  tokenizer: { encode(text: string): number[] },
  limit = LISTED_REFERENCES,
): (problemId: string) => ReferenceTokens[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const cache = new Map<string, ReferenceTokens[]>();
  return (problemId) => {
    let refs = cache.get(problemId);
    if (!refs) {
      const r = byId.get(problemId);
      if (!r) throw new Error(`dataset references: no record '${problemId}' among the ${records.length} task records`);
      refs = referenceTokens(r, tokenizer, limit);
      cache.set(problemId, refs);
    }
    return refs;
  };
}
