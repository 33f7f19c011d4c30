import { initEngine } from '@rred/engine';
import { buildBatch, disposeBatch } from './batching';

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('buildBatch', () => {
  it("trains completion tokens only, minus each example's untrained positions", () => {
    // prompt [1, 7]; completion [8, 9, 4, 5, 2]: position 2 (a `</think>`, say) untrained
    const batch = buildBatch([{ prompt: [1, 7], completion: [8, 9, 4, 5, 2], untrained: [2] }, { prompt: [1, 7, 7], completion: [8, 2] }], 16, 0);
    const targets = Array.from(batch.targets.dataSync());
    const mask = Array.from(batch.mask.dataSync());
    const T = 6;
    // row 0: targets 7 8 9 4 5 2 → trained 8 9 _ 5 2
    expect(targets.slice(0, T)).toEqual([7, 8, 9, 4, 5, 2]);
    expect(mask.slice(0, T)).toEqual([0, 1, 1, 0, 1, 1]);
    // row 1: targets 7 7 8 2 + padding → trained 8 2
    expect(mask.slice(T)).toEqual([0, 0, 1, 1, 0, 0]);
    expect(batch.completionLengths).toEqual([4, 2]);
    disposeBatch(batch);
  });
});
