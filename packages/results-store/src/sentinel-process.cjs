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
 * argv: <better-sqlite3 module path> <store file> <watched pid> <hostname>
 */
const [, , sqlitePath, file, pidText, host] = process.argv;
const pid = Number(pidText);
const Database = require(sqlitePath); // loaded now, so that ending the runs takes milliseconds
let ended = false;

function endRuns(status, failure) {
  if (ended) return;
  ended = true;
  if (!require('fs').existsSync(file)) return; // a temporary store already removed: nothing to end
  try {
    const db = new Database(file, { fileMustExist: true, timeout: 10000 });
    try {
      const now = Date.now();
      db.prepare(
        "UPDATE runs SET status = ?, end_time = ?, heartbeat_time = ?, failure = ? WHERE pid = ? AND hostname = ? AND status = 'RUNNING'",
      ).run(status, now, now, failure, pid, host);
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
    endRuns('KILLED', `received ${signal}`);
    process.exit(0);
  });
}

process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  // EOF: the watched process closed the pipe (store closed) or died. Only a dead one leaves runs behind;
  // where there is no /proc to tell a zombie from a live process, look again for up to 1 s.
  let looks = 0;
  const look = () => {
    if (gone(pid)) {
      endRuns('FAILED', `process ${pid} died without ending the run (seen at once by its sentinel)`);
      process.exit(0);
    }
    if (++looks >= 40) process.exit(0);
    setTimeout(look, 25);
  };
  look();
});
process.stdin.resume();
process.stdout.write('ready\n'); // the handlers are in place: the store may start runs
