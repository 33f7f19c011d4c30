import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readJsonFile } from '@rred/core';
import { checkRunRows } from './run-rows';
import { openStore, type Store } from './store';

/**
 * A private, temporary store holding the runs of run-export files (results/runs/*.json): what a clone
 * without a store renders and builds its report page from. `close` deletes it.
 */
export function openStoreOfExports(files: readonly string[]): { store: Store; close(): void } {
  const exports = files.map((file) => ({ data: checkRunRows(readJsonFile(file, 'run export'), file), source: file }));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-exports-'));
  const close = () => fs.rmSync(tmp, { recursive: true, force: true });
  let store: Store | null = null;
  try {
    store = openStore(path.join(tmp, 'store.sqlite'));
    store.importRuns(exports);
  } catch (err) {
    store?.close();
    close();
    throw err;
  }
  const opened = store;
  return {
    store: opened,
    close() {
      opened.close();
      close();
    },
  };
}

/** The run-export files of a results directory (results/runs/*.json), in name order; [] without any. */
export function runExportFiles(resultsDir: string): string[] {
  const dir = path.join(resultsDir, 'runs');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}
