import * as fs from 'fs';
import * as path from 'path';
import { UserError } from '@rred/core';
import { checkRunRows } from './run-rows';
import { openStore } from './store';
import { FIXED_CONTEXT, sampleBundle, tempDir } from '../testing';

const backend = { backend: 'cpu', openblasThreads: null };

describe('run rows: export and import', () => {
  const dir = tempDir('run-rows');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function source() {
    const store = openStore(path.join(dir, 'source.sqlite'));
    const parent = store.startRun({ experiment: 'sweep', config: { grid: 1 }, backend, context: FIXED_CONTEXT });
    const child = store.startRun({
      experiment: 'mc-variance',
      config: { seed: 3 },
      backend,
      context: FIXED_CONTEXT,
      parentRunId: parent.id,
      tags: { t: 'x' },
    });
    child.logMetrics({ acc: 0.25, nan: NaN }, 0);
    child.logMetrics({ acc: 0.5 }, 1);
    child.writeTraceBundle(sampleBundle('a', 3));
    child.writeTraceBundle(sampleBundle('b', 2));
    child.finish();
    parent.finish();
    return { store, parent: parent.id, child: child.id };
  }

  it('a store made from the export holds the same runs, traces and metrics, and exports the same rows', () => {
    const { store, parent, child } = source();
    const data = store.exportRuns([parent, child], [child]);
    const copy = openStore(path.join(dir, 'copy.sqlite'));
    expect(copy.importRuns([{ data: JSON.parse(JSON.stringify(data)), source: 'test' }])).toEqual({ added: [child, parent], present: [] });
    expect(copy.getRun(child)).toEqual(store.getRun(child));
    expect(copy.traces(child)).toEqual(store.traces(child));
    expect(copy.metricHistory(child, 'nan')[0].value).toBeNaN();
    expect(copy.exportRuns([parent, child], [child])).toEqual(data);
    // again: nothing added twice
    expect(copy.importRuns([{ data, source: 'test' }])).toEqual({ added: [], present: [child, parent] });
    expect(copy.tableCounts()).toEqual(store.tableCounts());
    store.close();
    copy.close();
  });

  it('a run named without its traces by one export and with them by another arrives whole, in either order', () => {
    const { store, parent, child } = source();
    const bare = store.exportRuns([parent, child]);
    const whole = store.exportRuns([child], [child]);
    expect(bare.runs[1].tables.traces).toBeUndefined();
    const copy = openStore(path.join(dir, 'order.sqlite'));
    copy.importRuns([
      { data: bare, source: 'bare' },
      { data: whole, source: 'whole' },
    ]);
    expect(copy.traces(child)).toHaveLength(2);
    store.close();
    copy.close();
  });

  it('refuses what is not an export, with one line naming it', () => {
    expect(() => checkRunRows({ runs: [] }, 'x.json')).toThrow(UserError);
    expect(() => checkRunRows({ format: 'rred-run-rows', version: 99, runs: [] }, 'x.json')).toThrow(/x\.json: run export version 99/);
  });
});
