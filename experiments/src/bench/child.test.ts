import { spawnSync } from 'child_process';
import * as fs from 'fs';
import { ownPeakRssKb } from './child';

const linux = fs.existsSync('/proc/self/status');

describe('peak-RSS child: its own peak, not the parent it was forked from', () => {
  it("is this process's resident peak: at least the memory it just touched", () => {
    const ballast = Buffer.alloc(64 * 2 ** 20, 1);
    expect(ballast[0]).toBe(1);
    expect(ownPeakRssKb()).toBeGreaterThan(64 * 1024);
  });

  (linux ? it : it.skip)('a child of a large parent: maxRSS reports the parent, VmHWM the child', () => {
    const ballast = Buffer.alloc(300 * 2 ** 20, 1); // 300 MiB resident in this (parent) process
    const script =
      "const m=/^VmHWM:\\s+(\\d+)/m.exec(require('fs').readFileSync('/proc/self/status','utf8'));" +
      'process.stdout.write(JSON.stringify({hwm:Number(m[1]),max:process.resourceUsage().maxRSS}))';
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    const { hwm, max } = JSON.parse(r.stdout) as { hwm: number; max: number };
    expect(ballast[ballast.length - 1]).toBe(1);
    expect(max).toBeGreaterThan(300 * 1024); // the parent's RSS at fork, kept across exec
    expect(hwm).toBeLessThan(200 * 1024); // a bare node process
  });
});
