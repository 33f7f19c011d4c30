/**
 * "Show only what differs" when comparing runs: `rred runs compare` and the report page's compare
 * view both use these rows, so they always agree on what differs.
 */
import { flatten } from './flatten';
import { formatFloat } from './floats';
import type { RunDetail } from './types';

/** Everything about a run that comparing runs looks at, as flat `section.key` → text. */
function comparableFields(run: RunDetail): Record<string, string> {
  const out: Record<string, string> = {
    'run.experiment': run.experiment,
    'run.name': run.name,
    'run.status': run.status,
    'run.seed': run.seed === null ? '' : String(run.seed),
    'run.config_hash': run.configHash,
    'run.attempts': String(run.attempts),
  };
  for (const [k, v] of Object.entries(run.params)) out[`params.${k}`] = v;
  for (const [k, v] of Object.entries(run.metrics)) out[`metrics.${k}`] = formatFloat(v);
  for (const [k, v] of Object.entries(run.tags)) out[`tags.${k}`] = v;
  for (const [k, v] of Object.entries(flatten({ context: run.context }))) out[k] = v;
  return out;
}

interface CompareRow {
  field: string;
  /** One value per run; null when that run does not have the field. */
  values: (string | null)[];
  differs: boolean;
}

const SECTION_ORDER = ['run', 'params', 'metrics', 'tags', 'context'];

/** Rows for `runs compare`: every field any run has, marked by whether the runs disagree on it. */
export function compareRuns(runs: RunDetail[]): CompareRow[] {
  const fields = runs.map(comparableFields);
  const keys = [...new Set(fields.flatMap((f) => Object.keys(f)))];
  keys.sort((a, b) => {
    const sa = SECTION_ORDER.indexOf(a.split('.')[0]);
    const sb = SECTION_ORDER.indexOf(b.split('.')[0]);
    return sa !== sb ? sa - sb : a < b ? -1 : a > b ? 1 : 0;
  });
  return keys.map((field) => {
    const values = fields.map((f) => (Object.prototype.hasOwnProperty.call(f, field) ? f[field] : null));
    return { field, values, differs: values.some((v) => v !== values[0]) };
  });
}
