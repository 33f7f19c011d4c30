/**
 * The lm benchmark (KV-cache vs uncached sampling throughput; prefix-sharing vs naive suffix scoring on
 * the embedded checkpoint) now lives in the repo bench as its `lm` section, so its numbers are measured
 * side by side with the others and written to results/bench/lm.json. This script runs that section.
 * Usage: npx tsx packages/lm/scripts/bench-lm.ts [--quick]
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { UserError, runMain } from '@rred/core';

runMain(async () => {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--quick')) throw new UserError(`bench-lm: expected no arguments or --quick, got ${args.join(' ')} (the section's config is in experiments/src/bench/lm-bench.ts)`);
  const root = path.resolve(__dirname, '..', '..', '..');
  const run = spawnSync('npx', ['tsx', 'experiments/src/bench/main.ts', '--only', 'lm', ...args], { cwd: root, stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
});
