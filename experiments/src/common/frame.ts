/**
 * Data frames for the analysis layer: arquero (from the UW Data lab, like vega-lite) groups, joins,
 * pivots and orders the rows the experiments load from the store.
 *
 * Its aggregate ops skip NaN and null (`op.mean`, `op.array_agg`, …), which would drop a missing
 * value without a trace. So arquero groups row *indices*, and every statistic is computed by
 * @rred/core's stats module over the member rows, NaN included (the stats module's convention).
 */
import * as aq from 'arquero';

const ROW = '__row';

interface Group<T, K extends keyof T> {
  key: Pick<T, K>;
  /** The group's rows, in input order. */
  rows: T[];
}

/**
 * Rows grouped by the values of `keys`: groups in order of first appearance, or sorted by the keys
 * (ascending, first key first) with `order: 'keys'`.
 */
export function groupRows<T extends object, K extends keyof T & string>(
  rows: readonly T[],
  keys: readonly K[],
  order: 'first' | 'keys' = 'first',
): Group<T, K>[] {
  if (rows.length === 0) return [];
  const pick = (o: Record<string, unknown>) => Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
  const frame = aq.from(rows.map((r, i) => ({ ...pick(r as Record<string, unknown>), [ROW]: i })));
  let grouped = frame.groupby(...keys).rollup({ [ROW]: aq.op.array_agg(ROW) });
  if (order === 'keys') grouped = grouped.orderby(...keys);
  return (grouped.objects() as Record<string, unknown>[]).map((o) => ({ key: pick(o), rows: (o[ROW] as number[]).map((i) => rows[i]) }));
}
