import * as path from 'path';
import Database from 'better-sqlite3';
import { LATEST_VERSION, MIGRATIONS } from './migrations';
import { expectedShape, schemaProblem } from './schema-check';
import { openStore } from './store';
import { FIXED_CONTEXT, sampleBundle, tempDir } from '../testing';

describe('schema migrations', () => {
  it('are numbered 1..N without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(LATEST_VERSION).toBe(MIGRATIONS.length);
  });

  it('upgrade a store created at migration 1 in place, keeping its runs', () => {
    const file = path.join(tempDir('migrate'), 'store.sqlite');
    const old = openStore(file, { targetVersion: 1 });
    expect(old.schemaVersion).toBe(1);
    expect(old.tableCounts()).not.toHaveProperty('traces');
    const run = old.startRun({
      experiment: 'e',
      config: { k: 1 },
      backend: { backend: 'cpu', openblasThreads: null },
      context: FIXED_CONTEXT,
    });
    run.logMetric('acc', 0.5, 3);
    run.finish();
    old.close();

    const current = openStore(file);
    expect(current.schemaVersion).toBe(LATEST_VERSION);
    expect(current.getRun(run.id)).toEqual(expect.objectContaining({ status: 'FINISHED', metrics: { acc: 0.5 } }));
    const resumedLater = current.startRun({
      experiment: 'e',
      config: { k: 2 },
      backend: { backend: 'cpu', openblasThreads: null },
      context: FIXED_CONTEXT,
    });
    resumedLater.writeTraceBundle(sampleBundle('t'));
    expect(current.traces(resumedLater.id)).toHaveLength(1);
    expect(current.integrityCheck()).toEqual(['ok']);
    current.close();
  });

  it('declare the tables and columns their SQL really creates (the shapes opening checks files against)', () => {
    const db = new Database(':memory:');
    const tables = () =>
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck()
        .all() as string[];
    expect(schemaProblem(db, 0)).toBeNull(); // an empty database is a new store
    for (const m of MIGRATIONS) {
      db.exec(m.sql);
      m.data?.(db);
      const shape = expectedShape(m.version);
      expect(tables()).toEqual([...shape.keys()].sort());
      for (const [t, cols] of shape)
        expect(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t)).toEqual(expect.arrayContaining([...cols]));
      expect(schemaProblem(db, m.version)).toBeNull();
      if (m.version > 1) expect(schemaProblem(db, m.version - 1)).toMatch(/tables disagree/);
    }
    expect(schemaProblem(db, 0)).toMatch(/not a results store/);
    db.close();
  });

  it('refuse a file written by a newer schema', () => {
    const file = path.join(tempDir('newer'), 'store.sqlite');
    openStore(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
    raw.close();
    expect(() => openStore(file)).toThrow(/newer than this code/);
  });
});
