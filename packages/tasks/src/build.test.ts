import * as path from 'path';
import { buildDatasets, DEFAULT_DATASET_SEED, EVAL_SPLITS, problemFromRecord, referenceSolutions, SPLITS, SPLIT_STEPS } from './build';
import { readJsonl } from './dataset';
import { answerOf, problemText } from './problem';
import { countSolutionOrders } from './orders';
import { solutionText } from './solution';

const SIZES = { train: 3000, validation: 200, 'eval-easy': 200, 'eval-medium': 200, 'eval-hard': 200 };

describe('buildDatasets', () => {
  const data = buildDatasets(7, SIZES);

  it('is deterministic, and a larger train extends a smaller one without changing held-out splits', () => {
    const again = buildDatasets(7, SIZES);
    expect(again).toEqual(data);
    const small = buildDatasets(7, { ...SIZES, train: 100 });
    expect(small.train).toEqual(data.train.slice(0, 100));
    for (const s of EVAL_SPLITS) expect(small[s]).toEqual(data[s]);
    expect(buildDatasets(8, SIZES)['eval-medium']).not.toEqual(data['eval-medium']);
  });

  it('gives each split its size and step range, and records consistent with their problems', () => {
    for (const split of SPLITS) {
      expect(data[split].length).toBe(SIZES[split]);
      const [lo, hi] = SPLIT_STEPS[split];
      for (const r of data[split]) {
        expect(r.split).toBe(split);
        const p = problemFromRecord(r);
        expect(p.steps.length).toBeGreaterThanOrEqual(lo);
        expect(p.steps.length).toBeLessThanOrEqual(hi);
        expect(r.meta.steps).toBe(p.steps.length);
        expect(r.answer).toBe(answerOf(p));
        expect(r.solution).toBe(solutionText(p));
        expect(r.meta.numValidOrders).toBe(countSolutionOrders(p));
        const alts = r.meta.alternativeSolutions as string[];
        expect(alts.length).toBe(Math.min(8, (r.meta.numValidOrders as number) - 1));
        expect(referenceSolutions(p, 9).map((x) => x.solution)).toEqual([r.solution, ...alts]);
      }
    }
  });

  it('never repeats a problem text within or across splits (no held-out problem in train)', () => {
    const all = SPLITS.flatMap((s) => data[s].map((r) => r.problem));
    expect(new Set(all).size).toBe(all.length);
    const ids = SPLITS.flatMap((s) => data[s].map((r) => r.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rejects unknown splits and bad sizes', () => {
    expect(() => buildDatasets(1, { test: 3 } as never)).toThrow(/unknown split 'test'/);
    expect(() => buildDatasets(1, { train: -1 })).toThrow(/train must be an integer >= 0, got -1/);
  });

  it('the committed data files are what the builder makes from the default seed', () => {
    const dir = path.resolve(__dirname, '../data');
    const fresh = buildDatasets(DEFAULT_DATASET_SEED, { train: 0 });
    for (const split of ['validation', ...EVAL_SPLITS] as const) {
      const records = readJsonl(path.join(dir, `${split}.jsonl`));
      expect(records).toEqual(fresh[split]);
    }
    // some held-out problems admit several solution orders (reference diversity, Eq. 10)
    expect(fresh['eval-hard'].filter((r) => (r.meta.numValidOrders as number) > 1).length).toBeGreaterThan(0);
    expect(fresh['eval-medium'].map((r) => problemText(problemFromRecord(r)))).toEqual(fresh['eval-medium'].map((r) => r.problem));
  });
});
