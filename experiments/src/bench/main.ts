/**
 * `npx nx run experiments:bench` — performance benchmarks, one section per subsystem, each writing
 * results/bench/<section>.json: engine (backends, MFU), lm (KV cache, prefix-sharing scorer),
 * estimators (per-trace cost of rredcot / mc / loo / gradient), training (GRPO vs RREDCoT-GRPO step).
 * Flags: `--only a,b` runs the named sections; `--quick` uses fewer repetitions and skips the slow cpu
 * backend (a smoke run; its numbers are not the acceptance numbers). See README.md here.
 */
import { UserError, runMain } from '@rred/core';
import { runEngineBench } from './engine-bench';
import { runLmBench } from './lm-bench';
import { runEstimatorsBench } from './estimators-bench';
import { runTrainingBench } from './training-bench';

interface Section {
  name: string;
  run(options: { quick: boolean }): Promise<unknown>;
}

const SECTIONS: Section[] = [
  {
    name: 'engine',
    run: ({ quick }) =>
      runEngineBench(
        quick
          ? { backends: ['wasm+native', 'wasm'], warmup: { 'wasm+native': 1, wasm: 0, cpu: 0 }, reps: { 'wasm+native': 3, wasm: 1, cpu: 1 } }
          : {},
      ),
  },
  {
    name: 'lm',
    run: ({ quick }) => runLmBench(quick ? { samplingPrompts: 4, scoringTraces: 2, scoringReps: 1, maxNewTokens: 100 } : {}),
  },
  {
    name: 'estimators',
    run: ({ quick }) => runEstimatorsBench(quick ? { traces: 2, mc: { samplesPerExitPoint: 4 } } : {}),
  },
  {
    name: 'training',
    run: ({ quick }) => runTrainingBench(quick ? { reps: 1 } : {}),
  },
];

function parseArgs(argv: string[]): { only: string[] | null; quick: boolean } {
  let only: string[] | null = null;
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!value) throw new UserError('--only: expected a comma-separated list of sections');
      only = value.split(',').map((s) => s.trim()).filter(Boolean);
    } else {
      throw new UserError(`unknown argument ${JSON.stringify(arg)}; expected --only <sections> or --quick`);
    }
  }
  const known = SECTIONS.map((s) => s.name);
  const unknown = (only ?? []).filter((s) => !known.includes(s));
  if (unknown.length) throw new UserError(`--only: unknown section(s) ${unknown.join(', ')}; available: ${known.join(', ')}`);
  return { only, quick };
}

runMain(async () => {
  const { only, quick } = parseArgs(process.argv.slice(2));
  for (const section of SECTIONS) {
    if (only && !only.includes(section.name)) continue;
    process.stderr.write(`bench: ${section.name}\n`);
    await section.run({ quick });
  }
});
