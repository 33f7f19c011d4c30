import type { GoldAnalysis } from './analysis';
import { bestAlignmentFree } from './examples';

/** An analysis holding only what bestAlignmentFree reads: each method's within-trace ρ over all traces. */
function analysis(rhos: Record<string, number>): GoldAnalysis {
  const methods = Object.fromEntries(Object.entries(rhos).map(([m, value]) => [m, { subsets: { all: { within: { all: { value } } } } }]));
  return { checkpoints: { bed: { methods } } } as unknown as GoldAnalysis;
}

describe('bestAlignmentFree', () => {
  it('takes the highest ρ among RREDCoT variants that read neither the alignment, own samples nor a rewrite', () => {
    const a = analysis({
      'rredcot.any.remaining.value.prob': 0.9, // oracle: reads the task alignment
      'rredcot.any.softStart.value.prob@both': 0.8, // own samples
      'rredcot.any.softStart.value.prob~swap': 0.7, // stress arm
      'mc.n20': 0.95,
      signedPosition: 0.6,
      'rredcot.any.softStart.value.prob': 0.5,
      'rredcot.any.bestStart.value.prob': 0.55,
      'rredcot.forced.any.immediate.log': Number.NaN,
    });
    expect(bestAlignmentFree(a, 'bed')).toBe('rredcot.any.bestStart.value.prob');
    // on any reference source the own/both variants compete; the oracle and the stress arm still do not
    expect(bestAlignmentFree(a, 'bed', true)).toBe('rredcot.any.softStart.value.prob@both');
  });

  it('breaks ties by name and gives null when the bed has no such variant', () => {
    expect(bestAlignmentFree(analysis({ 'rredcot.any.softStart.value.prob': 0.5, 'rredcot.any.bestStart.value.prob': 0.5 }), 'bed')).toBe(
      'rredcot.any.bestStart.value.prob',
    );
    expect(bestAlignmentFree(analysis({ 'mc.n1': 0.3 }), 'bed')).toBeNull();
    expect(bestAlignmentFree(analysis({}), 'other')).toBeNull();
  });
});
