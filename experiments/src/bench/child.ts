/**
 * Child process of the training bench's peak-RSS measurement: one step of one variant, then its peak
 * resident set size. argv: <variant> <training bench config JSON>. Prints `maxRssKb=<n>`.
 *
 * The peak is the process's own memory's high-water mark, VmHWM of /proc/self/status (Linux): getrusage's
 * maxRSS (process.resourceUsage) carries the RSS the child had right after fork (the parent's) across
 * exec, so every child of a bench parent larger than one step reported the parent's size (all six at
 * 640.5 MB in run 0e5c773f2521, a ratio of exactly 1). Elsewhere maxRSS.
 */
import * as fs from 'fs';
import { runMain } from '@rred/core';
import { runOneStep } from './training-bench';

/** The own peak RSS in KiB: VmHWM where /proc has it, else getrusage's maxRSS. */
export function ownPeakRssKb(): number {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // no /proc (not Linux): fall through
  }
  return process.resourceUsage().maxRSS;
}

if (require.main === module)
  runMain(async () => {
    const [variant, config] = process.argv.slice(2);
    await runOneStep(JSON.parse(config), variant);
    process.stdout.write(`maxRssKb=${ownPeakRssKb()}\n`);
  });
