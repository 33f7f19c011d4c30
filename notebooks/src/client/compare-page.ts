import { compareRuns } from '@rred/results-store';
import { loadIndex, loadRun, resolveId } from './data';
import { app, el, runLink } from './dom';
import { gridKeys, gridSection } from './grid';

export async function comparePage(): Promise<void> {
  const main = app();
  const q = new URLSearchParams(location.search);
  const written = (q.get('ids') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const showAll = q.get('all') === '1';
  main.replaceChildren();
  main.append(el('h1', {}, 'Compare runs'));
  const idsInput = el('input', { name: 'ids', value: written.join(','), placeholder: 'id,id[,...]', size: '60' });
  const allBox = el('input', { type: 'checkbox', name: 'all', value: '1' });
  allBox.checked = showAll;
  main.append(
    el(
      'form',
      { class: 'filter', method: 'get', action: 'compare.html' },
      el('label', {}, 'run ids (comma-separated; prefixes work)', idsInput),
      el('label', {}, 'show identical fields too', allBox),
      el('button', { type: 'submit' }, 'Compare'),
    ),
  );
  if (written.length < 2) {
    main.append(el('p', { class: 'empty' }, 'Give two or more run ids, or select runs on the Runs page.'));
    return;
  }
  const index = await loadIndex();
  const docs = await Promise.all(written.map((w) => loadRun(resolveId(index, w))));
  const runs = docs.map((d) => d.run);
  // The same rows as `rred runs compare` (its compareRuns): by default only the fields that differ.
  const rows = compareRuns(runs);
  const shown = showAll ? rows : rows.filter((r) => r.differs);
  const differing = rows.filter((r) => r.differs).length;
  main.append(
    el('p', { class: 'count' }, `${differing} field(s) differ, ${rows.length - differing} identical${showAll ? '' : ' (hidden)'}`),
  );
  if (shown.length === 0) main.append(el('p', { class: 'empty' }, `no differences between ${runs.map((r) => r.id).join(', ')}`));
  else {
    const compare = el(
      'table',
      { class: 'compare' },
      el('thead', {}, el('tr', {}, el('th', {}, 'field'), ...runs.map((r) => el('th', {}, runLink(r.id))))),
      el(
        'tbody',
        {},
        ...shown.map((row) =>
          el(
            'tr',
            { class: row.differs ? 'differs' : 'same', 'data-field': row.field },
            el('td', {}, row.field),
            ...row.values.map((v) => el('td', { class: 'value' }, v === null ? '(missing)' : v)),
          ),
        ),
      ),
    );
    main.append(el('div', { class: 'scroll' }, compare));
  }
  // the metrics side by side: the runs' grid values (their sweep's grid keys, else the params that differ)
  // as columns and colours, one small multiple per metric
  const parents = new Set(runs.map((r) => r.parentRunId));
  const parentId = parents.size === 1 ? [...parents][0] : null;
  const sweep = parentId && index.runs.some((x) => x.id === parentId) ? (await loadRun(parentId)).run : null;
  main.append(el('h2', {}, 'Metrics'));
  if (docs.every((d) => Object.keys(d.history).length === 0)) {
    main.append(el('p', { class: 'empty' }, 'none of these runs has metrics'));
    return;
  }
  await gridSection(main, docs, gridKeys(runs, sweep));
}
