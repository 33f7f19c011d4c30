import { buildDatasets, problemFromRecord, referenceSolutions } from './build';
import type { TaskRecord } from './dataset';
import { LISTED_REFERENCES, referencesById, referenceTokens } from './references';

const tok = { encode: (text: string) => [...text].map((c) => c.charCodeAt(0)) };
const records = buildDatasets(3, { train: 0, validation: 0, 'eval-easy': 0, 'eval-medium': 0, 'eval-hard': 30 })['eval-hard'];

describe('dataset references', () => {
  it('equal the problem-regenerated solution orders for every limit, listed or not', () => {
    const many = records.find((r) => (r.meta.numValidOrders as number) > 16)!;
    expect(many).toBeDefined();
    for (const r of [records[0], many]) {
      for (const limit of [1, 2, 4, 9, 10, 16]) {
        const expected = referenceSolutions(problemFromRecord(r), limit).map((x) => ({
          solution: tok.encode(x.solution),
          answer: tok.encode(x.answer),
        }));
        expect(referenceTokens(r, tok, limit)).toEqual(expected);
      }
    }
    expect(referenceTokens(many, tok, 16)).toHaveLength(16);
    expect(referenceTokens(many, tok)).toHaveLength(LISTED_REFERENCES);
  });

  it('take a foreign record (no task metadata) as it lists itself', () => {
    const foreign: TaskRecord = {
      id: 'm1',
      problem: 'What is 2+2?',
      solution: 'two plus two',
      answer: '4',
      split: 'x',
      meta: { alternativeSolutions: ['2+2'] },
    };
    expect(referenceTokens(foreign, tok, 5)).toEqual([
      { solution: tok.encode('two plus two'), answer: tok.encode('4') },
      { solution: tok.encode('2+2'), answer: tok.encode('4') },
    ]);
    expect(referenceTokens({ ...foreign, meta: {} }, tok, 3)).toHaveLength(1);
  });

  it('are looked up by problem id, tokenized once, and an unknown id is an error naming it', () => {
    let calls = 0;
    const counting = { encode: (t: string) => (calls++, tok.encode(t)) };
    const lookup = referencesById(records, counting, 2);
    const first = lookup(records[1].id);
    const n = calls;
    expect(lookup(records[1].id)).toBe(first);
    expect(calls).toBe(n);
    expect(first).toEqual(referenceTokens(records[1], tok, 2));
    expect(() => lookup('nope')).toThrow(/no record 'nope' among the 30 task records/);
  });
});
