import { flatten, formatFloat } from '@rred/results-store';
import { curveSpec, embed } from './charts';
import { loadIndex, loadRun, resolveId } from './data';
import { app, el, elapsed, keyValueTable, link, runLink, table, utcTime } from './dom';

type RunDoc = Awaited<ReturnType<typeof loadRun>>;
type RunIndex = Awaited<ReturnType<typeof loadIndex>>;

/** run.html?id=…: one run's summary, metrics, params, tags, provenance, children, artifacts and config. */
export async function runPage(): Promise<void> {
  const main = app();
  const idParam = new URLSearchParams(location.search).get('id');
  if (!idParam) throw new Error('run.html needs ?id=<run id> (pick a run on the Runs page)');
  const index = await loadIndex();
  const doc = await loadRun(resolveId(index, idParam));
  const r = doc.run;
  main.replaceChildren();
  main.append(el('h1', {}, `Run ${r.id}`), el('p', { class: 'muted' }, `${r.experiment} · ${r.name}`));
  summarySection(main, doc);
  await metricsSection(main, doc);
  settingsSections(main, doc);
  childrenSection(main, doc, index);
  if (r.artifacts.length)
    main.append(
      el('h2', {}, 'Artifacts'),
      table(
        ['path', 'bytes', 'sha256'],
        r.artifacts.map((a) => [a.path, String(a.bytes), a.sha256.slice(0, 12)]),
      ),
    );
  main.append(el('h2', {}, 'Config'), el('pre', { class: 'config' }, JSON.stringify(r.config, null, 2)));
}

function summarySection(main: HTMLElement, doc: RunDoc): void {
  const r = doc.run;
  main.append(
    el('h2', {}, 'Summary'),
    keyValueTable(
      [
        ['id', r.id],
        ['experiment', r.experiment],
        ['name', r.name],
        ['status', r.status],
        ['started (UTC)', utcTime(r.startTime)],
        ['ended (UTC)', utcTime(r.endTime)],
        ['duration', elapsed(r.startTime, r.endTime)],
        ['seed', r.seed === null ? '' : String(r.seed)],
        ['config hash', r.configHash],
        ['attempts', String(r.attempts)],
        ['host / pid', `${r.hostname} / ${r.pid}`],
        ...(r.failure ? [['failure', r.failure] as [string, string]] : []),
      ],
      { class: 'summary' },
    ),
  );
  if (r.parentRunId) main.append(el('p', {}, 'Parent (sweep) run: ', runLink(r.parentRunId)));
}

async function metricsSection(main: HTMLElement, doc: RunDoc): Promise<void> {
  const r = doc.run;
  main.append(el('h2', {}, 'Metrics'));
  const keys = Object.keys(doc.history).sort();
  if (keys.length === 0) {
    main.append(el('p', { class: 'empty' }, 'no metrics'));
    return;
  }
  main.append(
    table(
      ['metric', 'last value', 'steps'],
      keys.map((k) => [k, formatFloat(r.metrics[k] ?? null), String(doc.history[k].length)]),
      { class: 'metrics' },
    ),
  );
  const charts = el('div', { class: 'charts' });
  main.append(charts);
  for (const k of keys) await embed(charts, curveSpec(k, [{ run: r.id, points: doc.history[k] }]), k);
}

/** Params, tags and provenance (the run context). */
function settingsSections(main: HTMLElement, doc: RunDoc): void {
  const r = doc.run;
  main.append(
    el('h2', {}, 'Params'),
    keyValueTable(
      Object.entries(r.params).sort(([a], [b]) => (a < b ? -1 : 1)),
      { class: 'params' },
    ),
  );
  if (Object.keys(r.tags).length) main.append(el('h2', {}, 'Tags'), keyValueTable(Object.entries(r.tags), { class: 'tags' }));
  main.append(
    el('h2', {}, 'Provenance'),
    keyValueTable(
      Object.entries(flatten({ context: r.context })).map(([k, v]) => [k.replace(/^context\./, ''), v]),
      { class: 'provenance' },
    ),
  );
}

function childrenSection(main: HTMLElement, doc: RunDoc, index: RunIndex): void {
  const r = doc.run;
  main.append(el('h2', {}, `Children (${doc.children.length})`));
  if (doc.children.length === 0) {
    main.append(el('p', { class: 'empty' }, 'no child runs'));
    return;
  }
  const byId = new Map(index.runs.map((x) => [x.id, x]));
  main.append(
    table(
      ['id', 'name', 'status'],
      doc.children.map((id) => [runLink(id), byId.get(id)?.name ?? '', byId.get(id)?.status ?? '']),
      { class: 'children' },
    ),
  );
  if (doc.children.length >= 2)
    main.append(
      el(
        'p',
        {},
        link(`compare.html?ids=${doc.children.join(',')}`, 'Compare the children'),
        ' · ',
        link(`index.html?parent=${r.id}`, 'list them'),
      ),
    );
}
