import type { Rng } from '@rred/core';

/** Where the trainer is in its data stream; saved in checkpoints so a resume continues exactly. */
export interface DataPosition {
  epoch: number;
  /** Index of the next example within the epoch's permutation. */
  offset: number;
}

/**
 * Epoch-wise shuffled order of `size` examples. Epoch e's permutation is drawn from
 * `rng.fork('epoch-e')`, so it depends only on the seed and e — resuming at (epoch, offset) gives the
 * same continuation without storing generator state.
 */
export class DataOrder {
  private permutationEpoch = -1;
  private permutation: number[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly size: number,
    public position: DataPosition = { epoch: 0, offset: 0 },
  ) {
    if (size <= 0) throw new RangeError('DataOrder: no examples');
  }

  /** The next `n` examples (epoch and index within the data set); crosses epoch boundaries when needed. */
  take(n: number): { epoch: number; index: number }[] {
    const out: { epoch: number; index: number }[] = [];
    while (out.length < n) {
      if (this.position.offset >= this.size) this.position = { epoch: this.position.epoch + 1, offset: 0 };
      const perm = this.epochPermutation(this.position.epoch);
      out.push({ epoch: this.position.epoch, index: perm[this.position.offset] });
      this.position = { epoch: this.position.epoch, offset: this.position.offset + 1 };
    }
    return out;
  }

  private epochPermutation(epoch: number): number[] {
    if (epoch !== this.permutationEpoch) {
      this.permutation = this.rng.fork(`epoch-${epoch}`).shuffle(Array.from({ length: this.size }, (_, i) => i));
      this.permutationEpoch = epoch;
    }
    return this.permutation;
  }
}
