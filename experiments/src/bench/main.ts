/**
 * `npx nx run experiments:bench` — performance benchmarks, one section per subsystem: engine (backends,
 * MFU), lm (KV cache, prefix-sharing scorer), estimators (per-trace cost of rredcot / mc / loo /
 * gradient), training (GRPO vs RREDCoT-GRPO step). One store run per invocation; results/bench/<section>.json
 * are rendered from it. Flags: `--only a,b` runs the named sections; `--quick` uses fewer repetitions
 * and skips the slow cpu backend (a smoke run: its numbers are not the acceptance numbers, so its
 * files go to a temporary directory unless `--out` is given); `--store FILE`; any config path as
 * `--lm.samplingPrompts 4` (defaults: experiments/configs/bench.json). See README.md here.
 */
import * as os from 'os';
import * as path from 'path';
import { canonicalJson } from '@rred/core';
import { experimentMain } from '../common/run-command';
import { QUICK_OVERRIDES } from './config';
import { benchExperiment } from './definition';

/**
 * `--quick` → the quick preset as config overrides, except the paths the user gives, whose value wins
 * (the parser refuses a path given twice, so the preset leaves those out).
 */
function expandQuick(argv: readonly string[]): string[] {
  if (!argv.includes('--quick')) return [...argv];
  const rest = argv.filter((a) => a !== '--quick');
  const given = (k: string) => rest.some((a) => a === `--${k}` || a.startsWith(`--${k}=`));
  const preset = Object.entries(QUICK_OVERRIDES)
    .filter(([k]) => !given(k))
    .flatMap(([k, v]) => [`--${k}`, typeof v === 'string' ? v : canonicalJson(v)]);
  const out = rest.some((a) => a === '--out' || a.startsWith('--out=')) ? [] : ['--out', path.join(os.tmpdir(), 'rred-bench-quick')];
  return [...preset, ...out, ...rest];
}

experimentMain(benchExperiment, expandQuick(process.argv.slice(2)));
