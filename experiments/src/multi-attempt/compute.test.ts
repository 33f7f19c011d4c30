/**
 * The comparison end to end on tiny settings (the committed multi-attempt checkpoint, 2 steps of 2 × 2 rollouts, 6 held-out
 * problems): every (arm, seed) child and the start evaluation are runs of the parent, the tables render from the store, and a
 * second parent with the same config reuses every child instead of training it again.
 */
import * as fs from 'fs';
import * as path from 'path';
import { initEngine } from '@rred/engine';
import { openStore, type Store } from '@rred/results-store';
import { FIXED_CONTEXT, tempDir } from '@rred/results-store/testing';
import { checkpointHashOf } from '../common/model';
import { computeMultiAttempt, MULTI_ATTEMPT_EXPERIMENT } from './compute';
import { multiAttemptExperimentSchema } from './config';
import { renderMultiAttemptTables, summarize } from './render';

const backend = { backend: 'wasm', openblasThreads: null };
const config = multiAttemptExperimentSchema.parse({
  arms: ['cal', 'naive-attempt', 'grpo'],
  seeds: [1, 2],
  train: { steps: 2, promptsPerStep: 2, groupSize: 2, maxNewTokensPerAttempt: 50 },
  data: { trainProblems: 40 },
  evaluation: { problems: 6, samplesPerProblem: 2 },
  analysis: { resamples: 200 },
});

beforeAll(async () => {
  await initEngine({ quiet: true });
});

describe('experiments:multi-attempt (tiny)', () => {
  let store: Store;
  let dir: string;
  beforeAll(() => {
    dir = tempDir('multi-attempt');
    store = openStore(path.join(dir, 'store.sqlite'));
  });
  afterAll(() => store.close());

  it('trains every child, renders the tables from the store, and a rerun reuses the children', async () => {
    const hash = checkpointHashOf(config.checkpoint);
    const first = store.startRun({ experiment: MULTI_ATTEMPT_EXPERIMENT, config, backend, context: FIXED_CONTEXT });
    await computeMultiAttempt({ store, run: first, config, checkpointHash: hash, backend });
    first.finish();
    const s = summarize(store, first.id);
    expect(s.childRuns).toHaveLength(1 + 3 * 2);
    expect(s.arms.map((a) => a.arm)).toEqual(['cal', 'naive-attempt', 'grpo']);
    for (const a of s.arms) {
      expect(a.metrics.verificationAtK.mean).toBeGreaterThanOrEqual(a.metrics.passAt1.mean);
      expect(a.metrics.attemptsUsed.mean).toBeGreaterThanOrEqual(1);
      expect(a.metrics.attemptsUsed.mean).toBeLessThanOrEqual(3);
    }
    expect(s.comparisons.map((c) => `${c.arm}-${c.against}`)).toEqual(['cal-naive-attempt', 'cal-grpo']);
    const files = renderMultiAttemptTables(store, first.id, path.join(dir, 'out'));
    expect(files.map((f) => path.basename(f))).toEqual(['summary.md', 'arms.csv', 'comparisons.csv', 'summary.json']);
    expect(fs.readFileSync(files[0], 'utf8')).toContain('| cal − naive-attempt | 2 |');

    const second = store.startRun({ experiment: MULTI_ATTEMPT_EXPERIMENT, config, backend, context: FIXED_CONTEXT });
    await computeMultiAttempt({ store, run: second, config, checkpointHash: hash, backend });
    second.finish();
    expect(summarize(store, second.id).childRuns.sort()).toEqual(s.childRuns.sort());
  }, 300_000);
});
