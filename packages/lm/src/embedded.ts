/**
 * The checkpoints that ship in the repository, by name: the checkpoint file and the JSON record of the
 * run that trained it, relative to the repository root. Every default checkpoint path asks here.
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
} as const satisfies Record<string, { checkpoint: string; runRecord: string }>;

/** The default checkpoint of every command and experiment. */
export const EMBEDDED_CHECKPOINT: string = EMBEDDED_CHECKPOINTS.embedded.checkpoint;
