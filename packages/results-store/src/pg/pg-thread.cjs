'use strict';
/**
 * The PostgreSQL connection of one store (a worker thread started by sync-client.ts). The store's code is
 * synchronous, as better-sqlite3 is, so the calling thread posts one request on `port` and blocks in
 * Atomics.wait on `flag` until this thread has posted the answer on the same port and set the flag.
 *
 * workerData: { pgPath, url, port, flag, lockTimeoutMs, connectTimeoutMs }
 * request:  { text, values }                  (values: Uint8Array stands for bytea)
 * answer:   { fields: string[], rows: unknown[][], rowCount } | { error: { message, code } }
 */
const { workerData } = require('worker_threads');
const pg = require(workerData.pgPath);

// int8 (BIGINT: epoch milliseconds, ids, COUNT(*)) as a JS number, as better-sqlite3 returns INTEGER:
// every value the store keeps is below 2^53.
const types = { getTypeParser: (oid, format) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) };
const client = new pg.Client({
  connectionString: workerData.url,
  connectionTimeoutMillis: workerData.connectTimeoutMs,
  keepAlive: true,
  types,
});
let broken = null;
client.on('error', (err) => {
  broken = err;
});
const connected = client.connect().then(
  () => client.query(`SET lock_timeout = ${Math.max(1, Math.floor(workerData.lockTimeoutMs))}`),
  (err) => {
    broken = err;
  },
);

const flag = new Int32Array(workerData.flag);
const port = workerData.port;

function answer(message) {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function describe(err) {
  return { message: err && err.message ? err.message : String(err), code: err && err.code ? String(err.code) : '' };
}

port.on('message', async ({ text, values }) => {
  try {
    await connected;
    if (broken) throw broken;
    const params = (values || []).map((v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
    const result = await client.query({ text, values: params, rowMode: 'array' });
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    answer({ fields: (last.fields || []).map((f) => f.name), rows: last.rows || [], rowCount: last.rowCount || 0 });
  } catch (err) {
    answer({ error: describe(broken && err !== broken ? broken : err) });
  }
});
