// Reads a Parquet file's rows as plain objects with hyparquet, an ES-module-only package that CommonJS
// code (this repository, jest's runtime) cannot require: src/parquet.ts runs this as a one-shot worker.
import { parentPort, workerData } from 'node:worker_threads';

try {
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  const file = await asyncBufferFromFile(workerData.file);
  const rows = await parquetReadObjects({ file });
  // BigInt columns (INT64) as numbers when exact, else as strings
  const plain = rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v]),
    ),
  );
  parentPort.postMessage({ rows: plain });
} catch (err) {
  parentPort.postMessage({ error: String(err && err.message ? err.message : err).split('\n')[0] });
}
