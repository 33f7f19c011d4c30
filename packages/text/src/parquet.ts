import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { UserError } from '@rred/core';

const WORKER = path.join(__dirname, '..', 'worker', 'parquet.mjs');

/** Every row of a Parquet file as an object (column → value), through hyparquet in a worker thread. */
export function readParquetRows(file: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { file } });
    worker.once('message', (m: { rows?: Record<string, unknown>[]; error?: string }) => {
      void worker.terminate();
      if (m.rows) resolve(m.rows);
      else reject(new UserError(`${file}: not a readable Parquet file (${m.error})`));
    });
    worker.once('error', (err) => reject(new UserError(`${file}: not a readable Parquet file (${err.message})`)));
  });
}
