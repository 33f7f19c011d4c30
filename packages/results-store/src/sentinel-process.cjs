'use strict';
/**
 * The sentinel of a process that writes runs (spawned by sentinel.ts; plain Node, no TypeScript loader,
 * so it starts in ~40 ms and its event loop is always idle). It ends the watched process's RUNNING runs
 * the moment that process can no longer do it itself:
 * - it receives SIGINT / SIGTERM / SIGHUP (a terminal's Ctrl-C reaches the whole process group; nx
 *   signals a task's process tree leaves first): the runs become KILLED at once, even while the
 *   watched process is inside seconds of synchronous compute, or is SIGKILLed by a launcher (the tsx
 *   CLI does that 60 ms after relaying a signal its busy child did not acknowledge);
 * - its stdin reaches EOF (the watched process exited or was SIGKILLed) while the runs are still
 *   RUNNING and the process is gone: they become FAILED at once, instead of after a stale heartbeat.
 * Every update is `WHERE status = 'RUNNING'`, so a run the process ended itself is never touched.
 *
 * It prints `ready` once its handlers are in place (the store waits for that before a run starts).
 *
 * argv: <better-sqlite3 module path> <store file> <watched pid> <hostname>, or for a PostgreSQL store
 * <pg module path> - <watched pid> <hostname> with the URL in RRED_SENTINEL_STORE (argv is public).
 */
const [, , driverPath, fileArg, pidText, host] = process.argv;
const pid = Number(pidText);
const driver = require(driverPath); // loaded now, so that ending the runs takes milliseconds
const pgUrl = fileArg === '-' ? process.env.RRED_SENTINEL_STORE : null;
const file = pgUrl ?? fileArg;
let ended = false;
const END_SQL =
  "UPDATE runs SET status = ?, end_time = ?, heartbeat_time = ?, failure = ? WHERE pid = ? AND hostname = ? AND status = 'RUNNING'";

/** The same update on a PostgreSQL store (one statement: its own transaction), then `then`. */
function endRunsPg(status, failure, then) {
  const client = new driver.Client({ connectionString: pgUrl, connectionTimeoutMillis: 10000 });
  const now = Date.now();
  let n = 0;
  client
    .connect()
    .then(() =>
      client.query(
        END_SQL.replace(/\?/g, () => `$${++n}`),
        [status, now, now, failure, pid, host],
      ),
    )
    .catch((err) => process.stderr.write(`results-store sentinel (pid ${pid}): could not end its runs: ${err.message}\n`))
    .finally(() =>
      client
        .end()
        .catch(() => {})
        .finally(then),
    );
}

/** Ends the runs, then calls `then` (at once for a file, when the server answered for PostgreSQL). */
function endRunsThen(status, failure, then) {
  if (ended) return then();
  if (!pgUrl) {
    endRuns(status, failure);
    return then();
  }
  ended = true;
  endRunsPg(status, failure, then);
}

function endRuns(status, failure) {
  if (ended) return;
  ended = true;
  const Database = driver;
  if (!require('fs').existsSync(file)) return; // a temporary store already removed: nothing to end
  try {
    const db = new Database(file, { fileMustExist: true, timeout: 10000 });
    try {
      const now = Date.now();
      db.prepare(END_SQL).run(status, now, now, failure, pid, host);
    } finally {
      db.close();
    }
  } catch (err) {
    process.stderr.write(`results-store sentinel (pid ${pid}): could not end its runs in ${file}: ${err.message}\n`);
  }
}

/** Whether the watched process is gone: no such pid, or a zombie its parent has not reaped yet (Linux). */
function gone(p) {
  try {
    process.kill(p, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return true;
  }
  try {
    const stat = require('fs').readFileSync(`/proc/${p}/stat`, 'utf8');
    const state = stat[stat.lastIndexOf(')') + 2];
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    endRunsThen('KILLED', `received ${signal}`, () => process.exit(0));
  });
}

process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  // EOF: the watched process closed the pipe (store closed) or died. Only a dead one leaves runs behind;
  // where there is no /proc to tell a zombie from a live process, look again for up to 1 s.
  let looks = 0;
  const look = () => {
    if (gone(pid)) {
      endRunsThen('FAILED', `process ${pid} died without ending the run (seen at once by its sentinel)`, () => process.exit(0));
      return;
    }
    if (++looks >= 40) process.exit(0);
    setTimeout(look, 25);
  };
  look();
});
process.stdin.resume();
process.stdout.write('ready\n'); // the handlers are in place: the store may start runs
