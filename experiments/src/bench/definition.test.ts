/**
 * The bench through the store: the committed results/bench/*.json documents, recorded as a bench run
 * (numbers as metrics, layout as tags), render back to the same bytes except `measuredAt`, which the
 * store takes from the run's end time. Quick runs never feed results/bench/; the newest full run of
 * each section does.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openStore, type Store } from '@rred/results-store';
import { repoRoot } from '@rred/core';
import { BENCH_SECTIONS, benchConfigSchema, type BenchSection } from './config';
import { benchRunsToRender, renderBench } from './definition';
import { readDocument, recordDocument } from './document';

const backend = { backend: 'wasm+native', openblasThreads: 1 };
const committedFile = (section: string) => path.join(repoRoot(), 'results', 'bench', `${section}.json`);
const committed = (section: string) => fs.readFileSync(committedFile(section), 'utf8');
/** Sections with a committed document (a section added since the last full bench run into the store has none yet). */
const COMMITTED = BENCH_SECTIONS.filter((s) => fs.existsSync(committedFile(s)));

describe('bench runs in the store', () => {
  let dir: string;
  let store: Store;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-bench-'));
    store = openStore(path.join(dir, 'store.sqlite'));
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A FINISHED bench run holding `sections`, each with the committed document's measurements. */
  const record = (sections: BenchSection[], quick = false): string => {
    const before = Date.now();
    while (Date.now() <= before); // end times are milliseconds: keep each run's distinct, so "newest" is defined
    const raw: Record<string, unknown> = { sections, quick };
    for (const s of COMMITTED) raw[s] = (JSON.parse(committed(s)) as { config: unknown }).config;
    const run = store.startRun({ experiment: 'bench', config: benchConfigSchema.parse(raw), backend });
    for (const s of sections) {
      const { config: _config, measuredAt: _at, ...measured } = JSON.parse(committed(s)) as Record<string, unknown>;
      recordDocument(run, s, measured);
    }
    run.finish();
    return run.id;
  };

  it('renders the committed documents back byte for byte (measuredAt = the run end)', () => {
    expect(COMMITTED).toEqual(expect.arrayContaining(['engine', 'lm', 'estimators', 'training']));
    const id = record([...COMMITTED]);
    const all = renderBench(store, id, path.join(dir, 'out'));
    // one JSON document per section, and the scaling section's markdown table beside its document
    const files = all.filter((f) => f.endsWith('.json'));
    expect(files.map((f) => path.basename(f))).toEqual(COMMITTED.map((s) => `${s}.json`));
    expect(all.filter((f) => !f.endsWith('.json')).map((f) => path.basename(f))).toEqual(
      COMMITTED.includes('scaling') ? ['scaling.md'] : [],
    );
    const end = new Date(store.getRun(id).endTime!).toISOString();
    const resolved = benchConfigSchema.parse(store.getRun(id).config);
    for (const [i, s] of COMMITTED.entries()) {
      // A section option added since the committed run shows in the resolved config with its default:
      // the document's config is the run's (re-resolved), everything measured renders byte for byte.
      const doc = JSON.parse(committed(s)) as Record<string, unknown>;
      const expected = `${JSON.stringify({ ...doc, config: resolved[s as BenchSection], measuredAt: end }, null, 2)}\n`;
      expect([s, fs.readFileSync(files[i], 'utf8') === expected]).toEqual([s, true]);
    }
    // the numbers are run metrics, queryable like any other experiment's
    const metrics = store.getRun(id).metrics;
    expect(metrics['estimators.costRatioMcOverRredcot']).toBe(
      (JSON.parse(committed('estimators')) as { costRatioMcOverRredcot: number }).costRatioMcOverRredcot,
    );
    const engine = JSON.parse(committed('engine')) as { details: Record<string, { trainStep: { allMs: number[] } }> };
    expect(metrics['engine.details.wasm+native.trainStep.allMs.0']).toBe(engine.details['wasm+native'].trainStep.allMs[0]);
  });

  it('keeps NaN, null, booleans, text and key order apart from the numbers', () => {
    const run = store.startRun({ experiment: 'bench', config: benchConfigSchema.parse({ sections: ['lm'] }), backend });
    const doc = { b: 1.5, a: { nan: NaN, none: null, yes: true, text: 'x', list: [3, { z: -0, y: 'q' }], empty: [] } };
    recordDocument(run, 'lm', doc);
    run.finish();
    const back = readDocument(store.getRun(run.id), 'lm');
    expect(JSON.stringify(back)).toBe(JSON.stringify(doc));
    expect(Number.isNaN((back.a as { nan: number }).nan)).toBe(true);
    expect(() => recordDocument(store.startRun({ experiment: 'bench', config: {}, backend }), 'lm', { 'a.b': 1 })).toThrow(
      /key 'a.b' contains '.'/,
    );
  });

  it('results/bench/ shows the newest full run of each section; quick runs never', () => {
    const all = record([...COMMITTED]);
    expect(benchRunsToRender(store)).toEqual([all]);
    const lm = record(['lm']);
    record(['engine'], true);
    expect(benchRunsToRender(store)).toEqual([all, lm]);
    const everything = record([...COMMITTED]);
    expect(benchRunsToRender(store)).toEqual([everything]);
  });
});
