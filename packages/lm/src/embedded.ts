import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, UserError } from '@rred/core';

/**
 * The checkpoints that ship in the repository, by name: the checkpoint file and the JSON record of the
 * run that trained it, relative to the repository root. Every default checkpoint path asks here. A bed
 * with `pretrainConfig` is made by `npx nx run lm:pretrain -- --config <pretrainConfig>`; until its
 * checkpoint file exists, reading it is a one-line error that says so. A bed with `splitDir` reads its
 * problems from packages/tasks/data/<splitDir>/ (split names `<splitDir>/eval-medium`, ...).
 */
export const EMBEDDED_CHECKPOINTS = {
  /** The embedded model every command defaults to; trained by `npx nx run lm:pretrain`. */
  embedded: { checkpoint: 'packages/lm/checkpoints/embedded.ckpt', runRecord: 'packages/lm/checkpoints/embedded.run.json' },
  /**
   * The "assumptions met" test bed: composite answers, early-exit SFT examples with `</think>`
   * untrained, masked wrong lines; trained in two stages (packages/recipes/README.md). The embedded
   * model above stays as the "assumptions violated" test bed.
   */
  assumptionsMet: {
    checkpoint: 'packages/lm/checkpoints/assumptions-met.ckpt',
    runRecord: 'packages/lm/checkpoints/assumptions-met.run.json',
  },
  /**
   * The free-form bed: the same problems written and solved in prose (varied phrasings, any valid order,
   * restatements, `wait` corrections), references in a `Step k.` style the corpus never holds, a piece
   * tokenizer. Not trained yet: made by its pretrain config.
   */
  freeForm: {
    checkpoint: 'packages/lm/checkpoints/free-form.ckpt',
    runRecord: 'packages/lm/checkpoints/free-form.run.json',
    pretrainConfig: 'packages/lm/checkpoints/free-form.pretrain.json',
    splitDir: 'free-form',
  },
} as const satisfies Record<string, { checkpoint: string; runRecord: string; pretrainConfig?: string; splitDir?: string }>;

/** The default checkpoint of every command and experiment. */
export const EMBEDDED_CHECKPOINT: string = EMBEDDED_CHECKPOINTS.embedded.checkpoint;

type BedName = keyof typeof EMBEDDED_CHECKPOINTS;

/** A bed's name (`freeForm`) → its checkpoint path; any other text is a path and comes back as it is. */
export function resolveCheckpoint(nameOrPath: string): string {
  return Object.hasOwn(EMBEDDED_CHECKPOINTS, nameOrPath) ? EMBEDDED_CHECKPOINTS[nameOrPath as BedName].checkpoint : nameOrPath;
}

/** The registry entry whose checkpoint is `file` (absolute, or relative to the repository root), if any. */
export function bedOfCheckpoint(file: string): { name: BedName; checkpoint: string; pretrainConfig?: string; splitDir?: string } | null {
  const wanted = path.resolve(repoRoot(), file);
  for (const [name, bed] of Object.entries(EMBEDDED_CHECKPOINTS)) {
    if (path.resolve(repoRoot(), bed.checkpoint) === wanted) return { name: name as BedName, ...bed };
  }
  return null;
}

/**
 * For a registered bed whose checkpoint file does not exist yet: the one-line error saying how to train
 * it. null for any other file.
 */
export function untrainedBedError(file: string): UserError | null {
  const bed = bedOfCheckpoint(file);
  if (!bed?.pretrainConfig || fs.existsSync(path.resolve(repoRoot(), bed.checkpoint))) return null;
  return new UserError(
    `checkpoint ${bed.checkpoint} (bed ${bed.name}) is not trained yet: run \`npx nx run lm:pretrain -- --config ${bed.pretrainConfig}\` first`,
  );
}
