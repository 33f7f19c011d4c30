/**
 * tools/run-target.js runs an nx target's command without nx and exits with the command's own code
 * (nx exits 1 for every failure): a usage error of the command is its one line and exit 2; an unknown
 * target is the tool's own one line, exit 2; --help of the command exits 0.
 */
import { spawn } from 'child_process';
import * as path from 'path';
import { ROOT } from './fixtures/run-script';

function runTarget(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'tools', 'run-target.js'), ...args], { cwd: ROOT });
    const out = { stdout: '', stderr: '' };
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...out }));
  });
}

describe('node tools/run-target.js <project>:<target> -- ARGS', () => {
  it("exits with the command's own code and prints only the command's lines", async () => {
    const [bad, help, unknown] = await Promise.all([
      runTarget(['experiments:mc-variance', '--', '--seeed', '1']),
      runTarget(['experiments:tables', '--', '--help']),
      runTarget(['experiments:nope']),
    ]);
    expect([bad.code, bad.stdout, bad.stderr.trimEnd().split('\n').length]).toEqual([2, '', 1]);
    expect(bad.stderr).toMatch(/^error: mc-variance: unknown flag --seeed; did you mean --seed\?/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: .*tables\|plots \[flags\]/);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toMatch(/^error: run-target: no target 'nope' in experiments \(targets: .*mc-variance.*\)\n$/);
  });
});
