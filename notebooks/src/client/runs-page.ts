import { evaluateFilter, formatFloat, parseFilter, RUN_STATUSES, type RunSummary } from '@rred/results-store';
import { loadIndex, resolveId } from './data';
import { app, el, runLink, table, utcTime, elapsed } from './dom';
import type { RunsIndex } from '../site-data';

interface Query {
  experiment: string;
  status: string;
  parent: string;
  where: string;
  columns: string;
}

function readQuery(): Query {
  const q = new URLSearchParams(location.search);
  return {
    experiment: q.get('experiment') ?? '',
    status: q.get('status') ?? '',
    parent: q.get('parent') ?? '',
    where: q.get('where') ?? '',
    columns: q.get('columns') ?? '',
  };
}

/** The runs `rred runs list` would print for the same options (the filter is @rred/results-store's own). */
function selectRuns(index: RunsIndex, q: Query): RunSummary[] {
  const filter = q.where.trim() ? parseFilter(q.where) : null;
  const parent = q.parent.trim() ? resolveId(index, q.parent) : null;
  return index.runs.filter(
    (r) =>
      (!q.experiment || r.experiment === q.experiment) &&
      (!q.status || r.status === q.status) &&
      (!parent || r.parentRunId === parent) &&
      (!filter || evaluateFilter(filter, r)),
  );
}

function columnText(run: RunSummary, field: string): string {
  if (field.startsWith('params.')) return run.params[field.slice(7)] ?? '';
  if (field.startsWith('metrics.')) {
    const k = field.slice(8);
    return k in run.metrics ? formatFloat(run.metrics[k]) : '';
  }
  if (field.startsWith('tags.')) return run.tags[field.slice(5)] ?? '';
  throw new Error(`columns: '${field}' must start with params., metrics. or tags.`);
}

function select(name: string, label: string, options: readonly string[], value: string): HTMLLabelElement {
  const s = el(
    'select',
    { name },
    el('option', { value: '' }, '(any)'),
    ...options.map((o) => {
      const opt = el('option', { value: o }, o);
      if (o === value) opt.selected = true;
      return opt;
    }),
  );
  return el('label', {}, label, s);
}

export async function runsPage(): Promise<void> {
  const index = await loadIndex();
  const q = readQuery();
  const main = app();
  main.replaceChildren();
  main.append(el('h1', {}, 'Runs'));
  const experiments = [...new Set(index.runs.map((r) => r.experiment))].sort();
  const whereInput = el('input', { name: 'where', value: q.where, placeholder: 'params.lr > 1e-4 and metrics.acc >= 0.5' });
  const columnsInput = el('input', { name: 'columns', value: q.columns, placeholder: 'params.lr,metrics.acc' });
  const parentInput = el('input', { name: 'parent', value: q.parent, placeholder: 'sweep run id', size: '14' });
  main.append(
    el(
      'form',
      { class: 'filter', method: 'get', action: 'index.html' },
      select('experiment', 'experiment', experiments, q.experiment),
      select('status', 'status', RUN_STATUSES, q.status),
      el('label', {}, 'parent', parentInput),
      el('label', {}, 'where (the filter language of rred runs list)', whereInput),
      el('label', {}, 'columns', columnsInput),
      el('button', { type: 'submit' }, 'Apply'),
    ),
  );
  main.append(
    el(
      'p',
      { class: 'muted' },
      'Filter fields: params.X, metrics.X (last value), tags.X, id, name, experiment, status, seed, attempts, config_hash, parent, start_time, end_time; ',
      'operators = != < <= > >=; and / or; parentheses; text in quotes. Select runs to compare them.',
    ),
  );

  let runs: RunSummary[];
  let extra: string[];
  try {
    runs = selectRuns(index, q);
    extra = q.columns
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    for (const r of runs.slice(0, 1)) extra.forEach((c) => columnText(r, c));
  } catch (err) {
    main.append(el('p', { class: 'error', role: 'alert' }, (err as Error).message));
    return;
  }
  const compareLink = el('a', { class: 'compare-link', href: '#' }, 'Compare selected');
  const updateCompare = () => {
    const ids = [...main.querySelectorAll<HTMLInputElement>('input.pick:checked')].map((c) => c.value);
    compareLink.href = ids.length >= 2 ? `compare.html?ids=${ids.join(',')}` : '#';
    compareLink.textContent = ids.length >= 2 ? `Compare ${ids.length} selected runs` : 'Compare selected (pick two or more)';
  };
  main.append(el('p', { class: 'count' }, `${runs.length} of ${index.runs.length} runs`, ' · ', compareLink));
  if (runs.length === 0) {
    main.append(el('p', { class: 'empty' }, 'no runs match'));
    return;
  }
  const header = ['', 'id', 'experiment', 'name', 'status', 'started (UTC)', 'duration', 'parent', ...extra];
  const rows = runs.map((r) => {
    const pick = el('input', { type: 'checkbox', class: 'pick', value: r.id, 'aria-label': `select ${r.id}` });
    pick.addEventListener('change', updateCompare);
    return [
      pick,
      runLink(r.id),
      r.experiment,
      r.name,
      r.status,
      utcTime(r.startTime),
      elapsed(r.startTime, r.endTime),
      r.parentRunId ? runLink(r.parentRunId) : '',
      ...extra.map((c) => columnText(r, c)),
    ];
  });
  main.append(table(header, rows, { class: 'runs' }));
  updateCompare();
}
