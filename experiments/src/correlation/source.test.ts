import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseConfig, readJsonFile, repoRoot } from '@rred/core';
import { openStore, type Store } from '@rred/results-store';
import { correlationConfigSchema } from './config';
import { findSourceRun } from './source';

const HASH = 'c'.repeat(64);
const backend = { backend: 'cpu', openblasThreads: null };

/** A FINISHED mc-variance run of checkpoint HASH; `committed`: its committedConfig tag (undefined: none, as a sweep child). */
function mcRun(store: Store, problems: number, committed?: 'yes' | 'no'): string {
  const tags: Record<string, string> = { checkpointHash: HASH, ...(committed ? { committedConfig: committed } : {}) };
  const run = store.startRun({ experiment: 'mc-variance', config: { problems, seed: 2 }, backend, tags });
  run.finish();
  return run.id;
}

describe("correlation's source run 'latest'", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-source-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const defaults = readJsonFile(path.join(repoRoot(), 'experiments', 'configs', 'correlation.json'), 'config file') as Record<
    string,
    unknown
  >;
  const latest = parseConfig(correlationConfigSchema, defaults, 'defaults');

  it('never picks a run of another config: with only such runs it refuses in one line listing them', () => {
    const store = openStore(path.join(dir, 'a.sqlite'));
    const small = mcRun(store, 30, 'no');
    expect(() => findSourceRun(store, latest, HASH)).toThrow(
      new RegExp(
        `^source.mcRun 'latest': no FINISHED mc-variance run of a committed config for checkpoint c{12}; candidates of other configs: ${small} \\(problems 30, seed 2\\); name one with --mcRun ID`,
      ),
    );
    store.close();
  });

  it('picks the newest run of a committed config even when a run of another config is newer', () => {
    const store = openStore(path.join(dir, 'b.sqlite'));
    const committed = mcRun(store, 150, 'yes');
    mcRun(store, 30, 'no');
    expect(findSourceRun(store, latest, HASH)).toBe(committed);
    store.close();
  });
});
