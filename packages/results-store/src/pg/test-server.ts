import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** A throwaway PostgreSQL cluster for tests: `url(db)` of a database on it, `stop()` ends it and removes its directory. */
export interface TestPostgres {
  url(database: string): string;
  /** Creates a new empty database (a store per test) and returns its URL. */
  createDatabase(name: string): string;
  stop(): void;
}

/** Where Debian's `postgresql` package puts the server binaries (newest major first), then PATH. */
function serverBin(name: string): string | null {
  const root = '/usr/lib/postgresql';
  const majors = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const m of majors) {
    const p = path.join(root, m, 'bin', name);
    if (fs.existsSync(p)) return p;
  }
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

/** Whether this machine has a PostgreSQL server to start (initdb and pg_ctl). */
function postgresAvailable(): boolean {
  return serverBin('initdb') !== null && serverBin('pg_ctl') !== null;
}

/** The uid/gid to run the server as: the `postgres` user when we are root (initdb refuses root), else ourselves. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root and there is no postgres user to run the test server as');
  return { uid, gid: id('-g') };
}

/** A free TCP port on 127.0.0.1 (asked of the kernel in a child process; released before the server takes it). */
function freePort(): number {
  const script =
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close();})";
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  const port = Number(r.stdout);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`could not find a free port: ${r.stderr}`);
  return port;
}

function run(bin: string, args: string[], user: { uid: number; gid: number } | null): void {
  const r = spawnSync(bin, args, { encoding: 'utf8', ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error}`);
}

/**
 * Starts a throwaway cluster: initdb (as the postgres user when root) in a new temporary directory, trust
 * authentication for the user `rred`, listening on 127.0.0.1 on a free port and on a Unix socket in that
 * directory only, fsync off (nothing in it outlives the test). Synchronous, for beforeAll.
 */
export function startTestPostgres(): TestPostgres {
  const initdb = serverBin('initdb');
  const pgCtl = serverBin('pg_ctl');
  if (!initdb || !pgCtl) throw new Error('no PostgreSQL server binaries (apt-get install -y postgresql)');
  const user = serverUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-pg-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  fs.chmodSync(dir, 0o700);
  const data = path.join(dir, 'data');
  const port = freePort();
  let started = false;
  const stop = () => {
    if (started) spawnSync(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...(user ?? {}), encoding: 'utf8' });
    started = false;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    run(initdb, ['-D', data, '-U', 'rred', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'], user);
    const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
    run(pgCtl, ['-D', data, '-o', opts, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start'], user);
    started = true;
  } catch (err) {
    stop();
    throw err;
  }
  const url = (database: string) => `postgresql://rred@127.0.0.1:${port}/${database}`;
  return {
    url,
    createDatabase(name: string): string {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`test database name '${name}': lower-case letters, digits, _`);
      const psql = serverBin('psql') ?? 'psql';
      run(
        psql,
        ['-X', '-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'rred', '-d', 'postgres', '-c', `CREATE DATABASE "${name}"`],
        null,
      );
      return url(name);
    },
    stop,
  };
}

/**
 * Whether the PostgreSQL suites run here: with server binaries, or always under RRED_REQUIRE_POSTGRES=1
 * (CI installs the server, so a missing one fails there). Without, it says so in one line on stderr.
 */
export function postgresTestsEnabled(suite: string): boolean {
  if (postgresAvailable() || process.env.RRED_REQUIRE_POSTGRES === '1') return true;
  process.stderr.write(
    `\nSKIPPED: ${suite}: no PostgreSQL server binaries (apt-get install -y postgresql; RRED_REQUIRE_POSTGRES=1 makes this a failure)\n\n`,
  );
  return false;
}
