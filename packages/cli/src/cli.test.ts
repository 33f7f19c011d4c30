import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from '@rred/core';
import { openStore, type RunContext } from '@rred/results-store';
import { runCli } from './cli';

const CONTEXT: RunContext = {
  git: { commit: 'c0ffee', dirty: false, diffSha256: null, untrackedFiles: 0 },
  argv: ['node', 'x'],
  cwd: '/',
  node: 'v20',
  platform: 'linux',
  arch: 'x64',
  cpus: 2,
  packages: {},
  lockfileSha256: null,
  backend: 'cpu',
  openblasThreads: null,
  threadEnv: { OPENBLAS_NUM_THREADS: null, OMP_NUM_THREADS: null },
};

/** A store with three runs of `exp` (lr 1e-3 FINISHED acc .7, lr 1e-5 FINISHED acc .3, lr 1e-3 FAILED) and one of `other`. */
function makeStore(): { file: string; ids: string[] } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rred-cli-')), 'store.sqlite');
  const store = openStore(file);
  const backend = { backend: 'cpu', openblasThreads: null };
  const mk = (experiment: string, lr: number, acc: number, status: 'finish' | 'fail') => {
    const run = store.startRun({ experiment, config: { lr, k: 4 }, backend, context: CONTEXT, tags: { note: 'a,"quoted"' } });
    run.logMetric('acc', acc / 2, 0);
    run.logMetric('acc', acc, 1);
    run.logMetric('loss', NaN, 1);
    if (status === 'finish') run.finish();
    else run.fail('diverged');
    return run.id;
  };
  const ids = [mk('exp', 1e-3, 0.7, 'finish'), mk('exp', 1e-5, 0.3, 'finish'), mk('exp', 1e-3, 0.1, 'fail'), mk('other', 1, 1, 'finish')];
  store.close();
  return { file, ids };
}

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  let out = '';
  await runCli(argv, { out: (t) => (out += t), env });
  return out;
}

/** A character device for --out: a private mknod node as root (never the system's /dev/null), else /dev/null. */
function characterDevice(dir: string): string {
  if (process.getuid?.() !== 0) return '/dev/null';
  execFileSync('mknod', ['-m', '666', path.join(dir, 'null'), 'c', '1', '3']);
  return path.join(dir, 'null');
}

describe('rred', () => {
  const { file, ids } = makeStore();
  const s = ['--store', file];

  it('lists runs filtered by experiment, status and a where-expression', async () => {
    const all = await cli(['runs', 'list', ...s]);
    for (const id of ids) expect(all).toContain(id);
    const filtered = await cli([
      'runs',
      'list',
      ...s,
      '--experiment',
      'exp',
      '--status',
      'FINISHED',
      '--where',
      'params.lr > 1e-4 and metrics.acc >= 0.5',
    ]);
    expect(filtered).toContain(ids[0]);
    for (const id of ids.slice(1)) expect(filtered).not.toContain(id);
    expect(
      await cli(['runs', 'list', '--where', "status = 'FAILED'", '--columns', 'params.lr,metrics.loss'], { RRED_STORE: file }),
    ).toMatch(new RegExp(`${ids[2]}.*0\\.001 +NaN`));
    expect(await cli(['runs', 'list', ...s, '--where', 'metrics.acc > 5'])).toBe('no runs match\n');
  });

  it('shows one run by id prefix with params, metrics and context', async () => {
    const out = await cli(['runs', 'show', ids[2].slice(0, 6), ...s]);
    expect(out).toMatch(/status +FAILED \(diverged\)/);
    expect(out).toMatch(/lr +0\.001/);
    expect(out).toMatch(/loss +NaN +1 +1/);
    expect(out).toMatch(/git\.commit +c0ffee/);
  });

  it('exports CSV with quoting and spelled-out NaN, and JSON with metric histories', async () => {
    const csv = (await cli(['runs', 'export', '--experiment', 'exp', '--format', 'csv', '--allow-partial', ...s])).trim().split('\n');
    expect(csv).toHaveLength(4);
    const header = csv[0].split(',');
    expect(header).toEqual(expect.arrayContaining(['params.lr', 'metrics.acc', 'metrics.loss', 'tags.note']));
    const row = csv[1];
    expect(row.startsWith(`${ids[0]},exp,`)).toBe(true);
    expect(row).toContain(',NaN,');
    expect(row.endsWith(',"a,""quoted"""')).toBe(true);
    const json = JSON.parse(await cli(['runs', 'export', ids[1], '--format', 'json', ...s])) as {
      id: string;
      metricHistory: Record<string, { step: number; value: unknown }[]>;
    }[];
    expect(json.map((r) => r.id)).toEqual([ids[1]]);
    expect(json[0].metricHistory.acc.map((p) => p.value)).toEqual([0.15, 0.3]);
    expect(json[0].metricHistory.loss[0].value).toBe('NaN');
  });

  it('refuses to export a run that did not finish unless --allow-partial, which the output states', async () => {
    await expect(cli(['runs', 'export', '--experiment', 'exp', '--format', 'csv', ...s])).rejects.toThrow(
      `runs export: run ${ids[2]} (FAILED) did not finish, so its traces are partial; pass --allow-partial to export anyway`,
    );
    const out = path.join(path.dirname(file), 'partial.csv');
    expect(await cli(['runs', 'export', ids[2], '--format', 'csv', '--allow-partial', '--out', out, ...s])).toBe(
      `wrote 1 run to ${out}; PARTIAL (--allow-partial): ${ids[2]} (FAILED) did not finish\n`,
    );
    expect(fs.readFileSync(out, 'utf8')).toContain(`${ids[2]},exp,`);
    fs.rmSync(out);
  });

  it('--out never replaces a character device or a FIFO, and a missing directory is one line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-cli-out-'));
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const device = characterDevice(dir);
    for (const [target, kind] of [
      [device, 'a character device'],
      [fifo, 'a FIFO'],
    ]) {
      await expect(cli(['runs', 'export', ids[0], '--format', 'json', '--out', target, ...s])).rejects.toThrow(
        `runs export: --out ${target} is ${kind}; only a regular file (or a new name) is written, choose another file`,
      );
    }
    expect(fs.statSync(device).isCharacterDevice()).toBe(true);
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
    await expect(cli(['runs', 'export', ids[0], '--format', 'json', '--out', '/proc/nope/x', ...s])).rejects.toThrow(
      /^runs export: --out \/proc\/nope\/x: its directory \/proc\/nope does not exist$/,
    );
    fs.rmSync(dir, { recursive: true });
  });

  it('checks the database', async () => {
    const out = await cli(['db', 'check', ...s]);
    expect(out).toMatch(/schema +version 3 \(latest 3\)/);
    expect(out).toMatch(/integrity +ok/);
    expect(out).toMatch(/runs +4/);
  });

  it('reports a damaged store from db check (read-only) and exits 1, while other commands refuse it', async () => {
    const damaged = `${file}.damaged`;
    fs.copyFileSync(file, damaged);
    const size = fs.statSync(damaged).size;
    const fd = fs.openSync(damaged, 'r+');
    // Smash the b-tree page headers of every page after the schema page.
    for (let page = 1; page * 4096 < size; page++) fs.writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, page * 4096);
    fs.closeSync(fd);
    let out = '';
    const err = await runCli(['db', 'check', '--store', damaged], { out: (t) => (out += t), env: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).exitCode).toBe(1);
    expect((err as Error).message).toMatch(/failed the integrity check/);
    expect(out).not.toMatch(/integrity +ok/);
    const before = fs.readFileSync(damaged);
    await expect(cli(['runs', 'list', '--store', damaged])).rejects.toThrow(/is corrupt|not a SQLite database/);
    expect(fs.readFileSync(damaged).equals(before)).toBe(true);
  });

  it('answers bad input with one-line UserErrors', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['runs', 'list', ...s, '--bogus'],
        /^rred runs list: unknown flag --bogus \(valid: --experiment, --parent, --status, --where, --columns, --store, --help\)$/,
      ],
      [['runs', 'list', ...s, ...s], /--store given twice/],
      [['runs', 'list', '--store', ''], /--store: got '', expected a file path/],
      [['runs', 'export', ids[0], ...s, '--format', 'csv', '--out='], /--out: got '', expected a file path/],
      [['db', 'check', 'extra', ...s], /unexpected argument 'extra'/],
      [['runs', 'show', 'abcdef012345', ...s], /no run with id 'abcdef012345'/],
      [['runs', 'show', 'not-hex', ...s], /'not-hex' is not a run id/],
      [['runs', 'show', ...s], /expected 1 argument/],
      [['runs', 'list', ...s, '--where', 'params.lr >> 3'], /malformed filter/],
      [['runs', 'list', ...s, '--status', 'DONE'], /--status got 'DONE'/],
      [['runs', 'export', ids[0], ...s], /--format must be csv or json/],
      [['runs', 'export', '--format', 'csv', ...s], /exactly one of the two/],
      [['runs', 'compare', ids[0], ...s], /at least 2 arguments/],
      [['runs', 'frobnicate'], /unknown command 'runs frobnicate'; did you mean/],
      [['runs', 'list', '--store', `${file}.missing`], /no results store at .*missing/],
      [['runs', 'list', ...s, '--experiment', ''], /^rred runs list: --experiment: got '', expected a value \(--experiment NAME\)$/],
      [['serve', '--host', ''], /^rred serve: --host: got '', expected a value \(--host HOST\)$/],
      [
        ['serve', '--host', '0.0.0.0'],
        /^rred serve: --host 0\.0\.0\.0 is not loopback and the server has no authentication; pass --allow-remote/,
      ],
    ];
    for (const [argv, pattern] of cases) {
      const err = await cli(argv).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toMatch(pattern);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('lists every command in --help and each command its options', async () => {
    const help = await cli(['--help']);
    for (const c of ['runs list', 'runs show', 'runs compare', 'runs export', 'db check']) expect(help).toContain(c);
    expect(await cli(['runs', 'compare', '--help'])).toMatch(/--all +show identical fields too/);
    expect(await cli(['runs', 'list', '--bogus', '-h'])).toMatch(/^usage: rred runs list \[flags\]/);
    expect(await cli(['db', 'check', '--help'])).toMatch(
      /--store FILE +results store file \(or a postgresql:\/\/ URL\) \(default: \$RRED_STORE/,
    );
  });

  it('accepts --x=v like --x v', async () => {
    const eq = await cli(['runs', 'list', `--store=${file}`, '--experiment=other']);
    expect(eq).toBe(await cli(['runs', 'list', '--store', file, '--experiment', 'other']));
    expect(eq).toContain(ids[3]);
    expect(eq).not.toContain(ids[0]);
  });
});
