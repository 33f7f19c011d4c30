import { flatten, formatFloat } from '@rred/results-store';
import { curveSpec, embed, isCurve, stepTitle } from './charts';
import { loadIndex, loadRun, resolveId } from './data';
import { app, el, elapsed, keyValueTable, link, runLink, table, utcTime } from './dom';
import { gridKeys, gridSection } from './grid';

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
  await childrenSection(main, doc, index);
  artifactsSection(main, doc);
  settingsSections(main, doc);
  main.append(el('h2', {}, 'Config'), el('pre', { class: 'config' }, JSON.stringify(r.config, null, 2)));
}

/** The files of the run: the committed result files that name it (linked), and what the store recorded as artifacts. */
function artifactsSection(main: HTMLElement, doc: RunDoc): void {
  const r = doc.run;
  main.append(el('h2', {}, 'Artifacts'));
  if (doc.files.length === 0 && r.artifacts.length === 0) {
    main.append(el('p', { class: 'empty' }, 'no committed result file names this run, and it recorded no artifacts'));
    return;
  }
  if (doc.files.length)
    main.append(
      el('p', {}, `Committed result files that name this run (${doc.files.length}):`),
      el('ul', { class: 'artifacts' }, ...doc.files.map((f) => el('li', {}, link(`results/${f}`, `results/${f}`)))),
    );
  if (r.artifacts.length)
    main.append(
      table(
        ['path', 'bytes', 'sha256'],
        r.artifacts.map((a) => [a.path, String(a.bytes), a.sha256.slice(0, 12)]),
        { class: 'artifacts' },
      ),
    );
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
  // one value per metric is a table; only metrics with several steps are drawn, against what their step counts
  const curves = keys.filter((k) => isCurve(doc.history[k]));
  const single = keys.filter((k) => !curves.includes(k));
  if (single.length)
    main.append(
      table(
        ['metric', 'value'],
        single.map((k) => [k, formatFloat(r.metrics[k] ?? null)]),
        { class: 'metrics' },
      ),
    );
  if (curves.length === 0) return;
  main.append(
    el('h3', {}, 'Curves'),
    table(
      ['metric', 'last value', 'steps', 'x axis'],
      curves.map((k) => [k, formatFloat(r.metrics[k] ?? null), String(doc.history[k].length), stepTitle(r.experiment, k)]),
      { class: 'curves' },
    ),
  );
  const charts = el('div', { class: 'charts' });
  main.append(charts);
  for (const k of curves) await embed(charts, curveSpec(k, stepTitle(r.experiment, k), [{ label: r.id, points: doc.history[k] }]), k);
}

/** Params, tags and provenance (the run context). */
function settingsSections(main: HTMLElement, doc: RunDoc): void {
  const r = doc.run;
  // a long value (a sweep's list of points) is in the Config section below, not spelled out here
  const shown = (v: string) => (v.length > 160 ? `(${v.length} characters: see Config below)` : v);
  main.append(
    el('h2', {}, 'Params'),
    keyValueTable(
      Object.entries(r.params)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, shown(v)]),
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

/** A run's children: one row each with its grid values (a sweep's grid keys) and metrics, and each metric across the grid. */
async function childrenSection(main: HTMLElement, doc: RunDoc, index: RunIndex): Promise<void> {
  const r = doc.run;
  if (doc.children.length === 0) return;
  main.append(el('h2', {}, `Children (${doc.children.length})`));
  const docs = await Promise.all(doc.children.map((id) => loadRun(id)));
  // one row per child with its grid values and single-valued metrics, then each metric across the grid
  if (docs.length >= 2)
    await gridSection(
      main,
      docs,
      gridKeys(
        docs.map((d) => d.run),
        r,
      ),
      { class: 'children grid' },
    );
  else {
    const byId = new Map(index.runs.map((x) => [x.id, x]));
    main.append(
      table(
        ['id', 'name', 'status'],
        doc.children.map((id) => [runLink(id), byId.get(id)?.name ?? '', byId.get(id)?.status ?? '']),
        { class: 'children' },
      ),
    );
  }
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
