import { segmentsThrough } from './mc-reuse';

describe('segmentsThrough', () => {
  it('builds contiguous segments whose exit points are exactly the missing offsets plus thinkEnd', () => {
    expect(segmentsThrough([0, 7, 3, 7, 12], 12)).toEqual([
      { start: 0, end: 3 },
      { start: 3, end: 7 },
      { start: 7, end: 12 },
    ]);
    expect(segmentsThrough([0], 5)).toEqual([{ start: 0, end: 5 }]);
    expect(segmentsThrough([0], 0)).toEqual([]);
  });
});
