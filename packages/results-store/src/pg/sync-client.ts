import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import * as path from 'node:path';

/** What one statement returned: column names and rows as arrays (bytea as Buffer). */
interface PgResult {
  fields: string[];
  rows: unknown[][];
  rowCount: number;
}

/** Whether an error means the session is gone (as opposed to a statement the server refused). */
function isLostSession(err: PgError): boolean {
  return (
    err.code.startsWith('08') ||
    err.code.startsWith('57P') ||
    ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'TIMEOUT'].includes(err.code) ||
    /Connection terminated|not queryable|ECONNRESET|EPIPE/i.test(err.message)
  );
}

/** An error the server or the driver reported, with its SQLSTATE / errno code ('' when none). */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

interface SyncClientOptions {
  /** How long a statement waits for a lock another session holds (PostgreSQL `lock_timeout`, ms). */
  lockTimeoutMs: number;
  /** How long connecting may take (ms). */
  connectTimeoutMs: number;
}

/**
 * A synchronous PostgreSQL connection: `pg` (asynchronous) runs in a worker thread (pg-thread.cjs) and this
 * thread blocks in Atomics.wait until the answer is posted, so the store keeps the synchronous API it has on
 * better-sqlite3. One statement at a time; the worker is unref'd, so an open connection never keeps the
 * process alive, and the server ends the session (rolling back an open transaction) when the process dies.
 */
export class SyncPgClient {
  private worker!: Worker;
  private port!: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  /** The session died (server restart, terminated backend, network): the next statement opens a new one. */
  private lost = false;

  constructor(
    private readonly url: string,
    private readonly opts: SyncClientOptions,
  ) {
    this.connect();
  }

  private connect(): void {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(path.join(__dirname, 'pg-thread.cjs'), {
      workerData: {
        pgPath: require.resolve('pg'),
        url: this.url,
        port: port2,
        flag: this.flag.buffer,
        lockTimeoutMs: this.opts.lockTimeoutMs,
        connectTimeoutMs: this.opts.connectTimeoutMs,
      },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
  }

  /**
   * Runs one statement (several, without values: the answer is the last one's). After a lost session the
   * statement runs on a new one: what the lost session had not committed is gone with it (the server rolled
   * it back), so a write that failed there is reported, and the next one (a run marked FAILED) goes through.
   */
  query(text: string, values: unknown[] = []): PgResult {
    if (this.closed) throw new PgError('the connection is closed', 'CLOSED');
    if (this.lost) {
      this.lost = false;
      this.port.close();
      void this.worker.terminate();
      this.connect();
    }
    try {
      return this.ask(text, values);
    } catch (err) {
      if (err instanceof PgError && isLostSession(err)) this.lost = true;
      throw err;
    }
  }

  private ask(text: string, values: unknown[]): PgResult {
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ text, values });
    // The server answers or the driver gives up within lock_timeout / connect timeout; the margin covers a slow query.
    const waited = Atomics.wait(this.flag, 0, 0, this.opts.lockTimeoutMs + this.opts.connectTimeoutMs + 600_000);
    const message = receiveMessageOnPort(this.port)?.message as PgResult | { error: { message: string; code: string } } | undefined;
    if (waited === 'timed-out' || message === undefined) throw new PgError('no answer from the server', 'TIMEOUT');
    if ('error' in message) throw new PgError(message.error.message, message.error.code);
    for (const row of message.rows)
      for (let i = 0; i < row.length; i++) {
        const v = row[i];
        if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[i] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      }
    return message;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.close();
    void this.worker.terminate();
  }
}
