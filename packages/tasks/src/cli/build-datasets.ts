/**
 * Writes the task's dataset splits as JSONL to packages/tasks/data (or --out DIR).
 *   npx tsx packages/tasks/src/cli/build-datasets.ts [--seed N] [--out DIR] [--train N] [--format prose]
 * Without --train, train.jsonl is not written (train is regenerated on the fly from the seed by
 * `buildDatasets`); held-out splits are the same whatever --train is.
 */
import * as path from 'path';
import { configKeyDocs, parseCommandLine, parseConfig, runMain, seedSchema } from '@rred/core';
import { z } from 'zod';
import { COMPOSITE_SPLITS, DEFAULT_DATASET_SEED, SPLITS, buildDatasets, compositeSplit, writeJsonl } from '../index';
import { FREE_FORM_DIR, buildProseDatasets } from '../prose/build';

const optionsSchema = z
  .object({
    seed: seedSchema
      .default(DEFAULT_DATASET_SEED)
      .describe('Seed of buildDatasets; DEFAULT_DATASET_SEED (@rred/tasks) gives the committed splits.'),
    train: z.number().int().min(0).default(0).describe('Train problems to write to train.jsonl; 0 writes no train split.'),
    format: z
      .enum(['notation', 'prose'])
      .default('notation')
      .describe(
        "'notation' (the task's splits, plus the composite split) or 'prose': the free-form bed's splits (the same problems as sentences, " +
          '`Step k.` references; no composite split), written to data/free-form/ unless --out says otherwise.',
      ),
  })
  .strict();

const SPEC = {
  name: 'tasks:datasets',
  usage: 'npx nx run tasks:datasets --',
  summary:
    "Writes the dataset splits of the task as JSONL (validation, eval-easy, eval-medium, eval-hard, eval-medium-composite; train with --train N; --format prose: the free-form bed's splits).",
  flags: {
    out: {
      type: 'string',
      value: 'DIR',
      path: true,
      description: 'output directory; left unset with --format prose, its free-form/ subdirectory',
      default: 'packages/tasks/data',
    },
  },
  config: { keys: configKeyDocs(optionsSchema) },
} as const;

runMain(() => {
  const args = parseCommandLine(process.argv.slice(2), SPEC);
  const options = parseConfig(optionsSchema, args.overrides, 'command line', args.written);
  const prose = options.format === 'prose';
  const out = args.flags.out ?? path.resolve(__dirname, '../../data', prose ? FREE_FORM_DIR : '');
  const data = (prose ? buildProseDatasets : buildDatasets)(options.seed, { train: options.train });
  for (const split of SPLITS) {
    if (split === 'train' && options.train === 0) continue;
    const file = path.join(out, `${split}.jsonl`);
    writeJsonl(file, data[split]);
    process.stdout.write(`${file}: ${data[split].length} problems\n`);
  }
  if (prose) return;
  for (const [name, source] of Object.entries(COMPOSITE_SPLITS) as [keyof typeof COMPOSITE_SPLITS, (typeof SPLITS)[number]][]) {
    const file = path.join(out, `${name}.jsonl`);
    const records = compositeSplit(name, data[source], options.seed);
    writeJsonl(file, records);
    process.stdout.write(`${file}: ${records.length} problems (composite form of ${source})\n`);
  }
});
