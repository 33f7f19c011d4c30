/**
 * The grammar of the gold benchmark's method names, read back into their parts. RREDCoT:
 *
 *   rredcot.<exit>.<valueSuffix>.<terms>.<space>[@<refs>][~<rewrite>]
 *
 * - exit: joint | forced | any (a slot the variant does not read is `any`);
 * - valueSuffix: the value term's suffix (full, remaining, bestStart, softStart, ...) or `any`;
 *   `remaining` reads the task's alignment of the trace to the reference: an oracle (an upper bound
 *   that a free-text chain of thought cannot compute);
 * - terms: immediate | value | both (or immediatePlusValue); space: log | prob;
 * - @own / @both: the reference source (none: the dataset's references);
 * - ~reorder / ~swap / ~reorderSwap: the stress arm, the dataset references rewritten (none: canonical).
 *
 * Others: `mc.n<n>` (MC at n samples per exit point), `gold`, `loo`, `gradient`, and the free baselines
 * of BASELINES (methods.ts).
 */
type MethodFamily = 'mc' | 'rredcot' | 'loo' | 'gradient' | 'baseline' | 'gold';
export type ReferenceSource = 'dataset' | 'own' | 'both';
export type Rewrite = 'canonical' | 'reorder' | 'swap' | 'reorderSwap';

interface MethodName {
  family: MethodFamily;
  /** RREDCoT slots; null for other families. */
  exit: string | null;
  valueSuffix: string | null;
  terms: string | null;
  space: string | null;
  /** Reference source of an RREDCoT variant ('dataset' for every other family). */
  refs: ReferenceSource;
  /** Wording of the references ('canonical' for every other family). */
  rewrite: Rewrite;
  /** True when the method reads the task's alignment (valueSuffix `remaining`). */
  oracle: boolean;
  /** MC's samples per exit point; null for other families. */
  n: number | null;
}

/** Value suffixes that read the task's alignment of trace lines to reference lines. */
const ORACLE_SUFFIXES = new Set(['remaining']);
const BASELINE_NAMES = new Set(['length', 'position', 'signedLength', 'signedPosition']);
const EXITS = new Set(['joint', 'forced', 'any']);
const TERMS = new Set(['immediate', 'value', 'both', 'immediatePlusValue']);
const SPACES = new Set(['log', 'prob']);
const REFS = new Set<string>(['own', 'both']);
const REWRITES = new Set<string>(['reorder', 'swap', 'reorderSwap']);

const RREDCOT = /^rredcot\.([A-Za-z]+)\.([A-Za-z]+)\.([A-Za-z]+)\.([A-Za-z]+)(?:@([A-Za-z]+))?(?:~([A-Za-z]+))?$/;

const plain = (family: MethodFamily, n: number | null = null): MethodName => ({
  family,
  exit: null,
  valueSuffix: null,
  terms: null,
  space: null,
  refs: 'dataset',
  rewrite: 'canonical',
  oracle: false,
  n,
});

/** The parts of a method name; throws naming the name and what was expected when it does not follow the grammar. */
export function parseMethodName(name: string): MethodName {
  const mc = /^mc\.n([1-9][0-9]*)$/.exec(name);
  if (mc) return plain('mc', Number(mc[1]));
  if (name === 'gold' || name === 'loo' || name === 'gradient') return plain(name);
  if (BASELINE_NAMES.has(name)) return plain('baseline');
  const m = RREDCOT.exec(name);
  if (!m) {
    throw new Error(
      `method name '${name}': expected rredcot.<exit>.<valueSuffix>.<terms>.<space>[@own|@both][~reorder|~swap|~reorderSwap], mc.n<n>, gold, loo, gradient or a baseline (${[...BASELINE_NAMES].join(', ')})`,
    );
  }
  const [, exit, valueSuffix, terms, space, refs, rewrite] = m;
  const bad = (slot: string, value: string, allowed: Set<string>) =>
    new Error(`method name '${name}': ${slot} '${value}' is not one of ${[...allowed].join(', ')}`);
  if (!EXITS.has(exit)) throw bad('exit', exit, EXITS);
  if (!TERMS.has(terms)) throw bad('terms', terms, TERMS);
  if (!SPACES.has(space)) throw bad('space', space, SPACES);
  if (refs !== undefined && !REFS.has(refs)) throw bad('reference source', refs, REFS);
  if (rewrite !== undefined && !REWRITES.has(rewrite)) throw bad('rewrite', rewrite, REWRITES);
  return {
    family: 'rredcot',
    exit,
    valueSuffix,
    terms,
    space,
    refs: (refs ?? 'dataset') as ReferenceSource,
    rewrite: (rewrite ?? 'canonical') as Rewrite,
    oracle: ORACLE_SUFFIXES.has(valueSuffix),
    n: null,
  };
}

/** The same variant on canonical references (the stress arm's comparison): the name without its ~rewrite tail. */
export const canonicalName = (name: string): string => name.replace(/~[A-Za-z]+$/, '');

/** What a method needs beyond the trace, the verifier's outcome and the references: 'task alignment' for the oracle variants. */
export const needsOf = (name: string): string => (parseMethodName(name).oracle ? 'task alignment' : '—');
