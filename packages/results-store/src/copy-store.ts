import { canonicalJson, UserError } from '@rred/core';
import type { RunRowsExport } from './run-rows';

/**
 * An export with its trace ids replaced by their position within each run (a copy renumbers them: the target
 * assigns its own), so that a copy and its source compare equal exactly when every other value is equal.
 */
function withTraceOrdinals(data: RunRowsExport): RunRowsExport {
  return {
    ...data,
    runs: data.runs.map((r) => {
      const traces = r.tables.traces;
      if (!traces) return r;
      const idCol = traces.columns.indexOf('id');
      const ordinal = new Map(traces.rows.map((row, i) => [row[idCol], i]));
      const tables = Object.fromEntries(
        Object.entries(r.tables).map(([name, t]) => {
          const col = name === 'traces' ? idCol : t.columns.indexOf('trace_id');
          if (col < 0) return [name, t];
          return [name, { ...t, rows: t.rows.map((row) => row.map((v, i) => (i === col ? ordinal.get(v) : v))) }];
        }),
      );
      return { ...r, tables };
    }),
  };
}

/**
 * Where the copy differs from the source, or null: runs in order, each table's rows compared by their
 * canonical JSON (floats as stored, NaN/±Infinity/-0 in their `_special` columns, blobs as base64).
 */
function firstDifference(source: RunRowsExport, copy: RunRowsExport): string | null {
  const [a, b] = [withTraceOrdinals(source), withTraceOrdinals(copy)];
  if (a.runs.length !== b.runs.length) return `${a.runs.length} runs in the source, ${b.runs.length} in the copy`;
  for (let i = 0; i < a.runs.length; i++) {
    const [x, y] = [a.runs[i], b.runs[i]];
    if (x.id !== y.id) return `run ${i + 1} is ${x.id} in the source, ${y.id} in the copy`;
    if (canonicalJson({ e: x.experiment, r: x.run }) !== canonicalJson({ e: y.experiment, r: y.run }))
      return `run ${x.id}: its runs row differs`;
    const names = [...new Set([...Object.keys(x.tables), ...Object.keys(y.tables)])].sort();
    for (const t of names) {
      const [rx, ry] = [x.tables[t]?.rows ?? [], y.tables[t]?.rows ?? []];
      if (rx.length !== ry.length) return `run ${x.id}: table ${t} has ${rx.length} rows in the source, ${ry.length} in the copy`;
      for (let j = 0; j < rx.length; j++)
        if (canonicalJson(rx[j]) !== canonicalJson(ry[j])) return `run ${x.id}: table ${t} row ${j + 1} differs`;
    }
  }
  return null;
}

/** Throws when the copy is not row for row the source (the caller's transaction then keeps nothing). */
export function checkCopy(source: RunRowsExport, copy: RunRowsExport, target: string): void {
  const diff = firstDifference(source, copy);
  if (diff) throw new UserError(`db copy: the copy in ${target} does not match its source (${diff}); nothing was written`);
}
