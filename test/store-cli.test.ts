/** `rred runs compare` end to end through the real bin: only what differs is printed. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { captureRunContext, openStore } from '@rred/results-store';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'rred.js');

function rred(args: string[], store: string): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, RRED_STORE: store }, encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

describe('rred runs compare', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rred-compare-')), 'store.sqlite');
  const store = openStore(file);
  const backend = { backend: 'cpu', openblasThreads: null };
  // One context for both runs, as a sweep would capture it: the runs then differ only in their config.
  const context = captureRunContext({ backend, argv: ['node', 'sweep.ts'] });
  const ids = [0.001, 0.0003].map((lr) => {
    const run = store.startRun({
      experiment: 'cmp',
      name: 'same-name',
      config: { lr, k: 8, strategy: 'hybrid' },
      backend,
      context,
      tags: { stage: 'dev' },
    });
    run.logMetric('acc', 0.5, 10);
    run.finish();
    return run.id;
  });
  store.close();

  it('prints the one differing param and none of the identical ones', () => {
    const { stdout, status, stderr } = rred(['runs', 'compare', ids[0], ids[1]], file);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const paramLines = stdout.split('\n').filter((l) => l.startsWith('params.'));
    expect(paramLines).toHaveLength(1);
    expect(paramLines[0]).toMatch(/^params\.lr +0\.001 +0\.0003$/);
    expect(stdout).not.toMatch(/params\.k|params\.strategy|metrics\.acc|tags\.stage|context\.|run\.name|run\.status/);
    expect(stdout).toContain('run.config_hash'); // follows from the param difference
  });

  it('prints every field with --all, marking the differing ones', () => {
    const { stdout, status } = rred(['runs', 'compare', '--all', ids[0], ids[1]], file);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^\* params\.lr +0\.001 +0\.0003$/m);
    expect(stdout).toMatch(/^params\.k +8 +8$/m);
    expect(stdout).toMatch(/^metrics\.acc +0\.5 +0\.5$/m);
    expect(stdout).toMatch(/^context\.git\.commit /m);
  });

  it('exits non-zero with a one-line error for a bad id or an unknown flag', () => {
    for (const args of [
      ['runs', 'compare', ids[0], 'ffffffffffff'],
      ['runs', 'compare', '--everything', ids[0], ids[1]],
    ]) {
      const r = rred(args, file);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: [^\n]+\n$/);
    }
  });
});
