/**
 * `npx nx run estimators:bench`: the per-trace cost of each estimator (rredcot with shared-prefix and
 * per-exit-point scoring, truncated MC, LOO, gradient) on the embedded checkpoint. The measurement lives
 * in the repo bench as its `estimators` section (held-out traces, hybrid K = 20, MC n = 20; writes
 * results/bench/estimators.json); this script runs that section.
 * Usage: npx tsx packages/estimators/bench/estimator-cost.ts [--quick]
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { UserError, runMain } from '@rred/core';

runMain(async () => {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--quick')) throw new UserError(`estimator-cost: expected no arguments or --quick, got ${args.join(' ')} (the section's config is in experiments/src/bench/estimators-bench.ts)`);
  const root = path.resolve(__dirname, '..', '..', '..');
  const run = spawnSync('npx', ['tsx', 'experiments/src/bench/main.ts', '--only', 'estimators', ...args], { cwd: root, stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
});
