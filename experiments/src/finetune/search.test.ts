import type { CurvePoint } from './curves';
import type { SearchCandidate } from './plan';
import { chooseSettings, runScore } from './search';

const curve = (avgs: number[]): CurvePoint[] => avgs.map((avg, i) => ({ step: i * 10, avg, trainSeconds: i }));
const candidate = (method: 'grpo' | 'rredcot', lr: number): SearchCandidate => ({
  testBed: 'embedded',
  method,
  varies: 'lr',
  setting: { lr, referenceSft: 0 },
  plans: [1, 2].map((seed) => ({ key: `${method}.lr${lr}.seed${seed}`, configHash: '', config: {} as never })),
});

describe('finetune search', () => {
  it('scores a run by the mean of its last validation points, in step order', () => {
    expect(runScore([...curve([0.1, 0.2, 0.5, 0.3])].reverse(), 2)).toBeCloseTo(0.4, 12);
    expect(runScore(curve([0.4]), 3)).toBeCloseTo(0.4, 12);
    expect(runScore([], 3)).toBeNaN();
  });
  it('chooses per method the candidate with the best seed-mean score; ties go to the first; unfinished groups choose nothing', () => {
    const curves: Record<string, number[]> = {
      'grpo.lr0.00003.seed1': [0.3, 0.4, 0.4],
      'grpo.lr0.00003.seed2': [0.3, 0.4, 0.5],
      'grpo.lr0.0001.seed1': [0.3, 0.6, 0.6],
      'grpo.lr0.0001.seed2': [0.3, 0.2, 0.2], // seed mean over the last 2 points: (0.6 + 0.2) / 2 = 0.4
      'grpo.lr0.0003.seed1': [0.3, 0.45, 0.45],
      'grpo.lr0.0003.seed2': [0.3, 0.45, 0.45], // 0.45, the best (3e-5: (0.4 + 0.45) / 2 = 0.425)
      'rredcot.lr0.0001.seed1': [0.3, 0.9, 0.9],
    };
    const keyOf = (m: string, lr: number, seed: number) => `${m}.lr${lr.toFixed(5).replace(/0+$/, '')}.seed${seed}`;
    const cands = [
      candidate('grpo', 3e-5),
      candidate('grpo', 1e-4),
      candidate('grpo', 3e-4),
      candidate('rredcot', 1e-4),
      candidate('rredcot', 3e-4),
    ];
    cands.forEach((c) => c.plans.forEach((p, i) => (p.key = keyOf(c.method, c.setting.lr, i + 1))));
    const { choices, scored } = chooseSettings(cands, (k) => (curves[k] ? curve(curves[k]) : null), 2);
    expect(scored.map((s) => s.score.toFixed(3))).toEqual(['0.425', '0.400', '0.450', 'NaN', 'NaN']);
    expect(choices.embedded?.grpo).toEqual({ lr: 3e-4, referenceSft: 0 });
    expect(choices.embedded?.rredcot).toBeUndefined(); // rredcot's candidates have not all finished
    expect(scored.filter((s) => s.chosen).map((s) => s.candidate.setting.lr)).toEqual([3e-4]);
    // an exact tie goes to the candidate listed first
    curves['grpo.lr0.00003.seed2'] = [0.3, 0.45, 0.45];
    curves['grpo.lr0.00003.seed1'] = [0.3, 0.45, 0.45];
    expect(chooseSettings(cands, (k) => (curves[k] ? curve(curves[k]) : null), 2).choices.embedded?.grpo?.lr).toBe(3e-5);
  });
});
