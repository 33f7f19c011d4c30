/**
 * Writes the task's dataset splits as JSONL to packages/tasks/data (or --out DIR).
 *   npx tsx packages/tasks/src/cli/build-datasets.ts [--seed N] [--out DIR] [--train N]
 * Without --train, train.jsonl is not written (train is regenerated on the fly from the seed by
 * `buildDatasets`); held-out splits are the same whatever --train is.
 */
import * as path from 'path';
import { UserError, runMain } from '@rred/core';
import { COMPOSITE_SPLITS, DEFAULT_DATASET_SEED, SPLITS, buildDatasets, compositeSplit, writeJsonl } from '../index';

function parseArgs(argv: string[]): { seed: number; out: string; train: number } {
  const args = { seed: DEFAULT_DATASET_SEED, out: path.resolve(__dirname, '../../data'), train: 0 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const int = (): number => {
      if (value === undefined || !/^\d+$/.test(value)) throw new UserError(`${flag} expects a non-negative integer, got ${JSON.stringify(value)}`);
      i++;
      return Number(value);
    };
    if (flag === '--seed') args.seed = int();
    else if (flag === '--train') args.train = int();
    else if (flag === '--out') {
      if (!value) throw new UserError('--out expects a directory');
      args.out = path.resolve(value);
      i++;
    } else throw new UserError(`unknown argument '${flag}'; expected --seed N, --out DIR, --train N`);
  }
  return args;
}

runMain(() => {
  const args = parseArgs(process.argv.slice(2));
  const data = buildDatasets(args.seed, { train: args.train });
  for (const split of SPLITS) {
    if (split === 'train' && args.train === 0) continue;
    const file = path.join(args.out, `${split}.jsonl`);
    writeJsonl(file, data[split]);
    process.stdout.write(`${file}: ${data[split].length} problems\n`);
  }
  for (const [name, source] of Object.entries(COMPOSITE_SPLITS) as [keyof typeof COMPOSITE_SPLITS, (typeof SPLITS)[number]][]) {
    const file = path.join(args.out, `${name}.jsonl`);
    const records = compositeSplit(name, data[source], args.seed);
    writeJsonl(file, records);
    process.stdout.write(`${file}: ${records.length} problems (composite form of ${source})\n`);
  }
});
