/**
 * The gold-value benchmark's scoring path in miniature, on the public APIs of tasks, lm and core: failed
 * traces with an uncorrected wrong line (SFT's own generator), the real character tokenizer, one segment
 * per thinking line, the step oracle's error mapped to a token span and then to its segment, and
 * simulated exit-point values V(s_k) that fall at that segment. A Monte-Carlo proxy of ΔV from two
 * independent halves then gets its split-half reliability and ceiling, and its credits are scored by
 * within-trace Spearman with the true ΔV and by error localization.
 */
import {
  Rng,
  localizationAuc,
  localizationTop1,
  mean,
  reliabilityCeiling,
  spearmanBrown,
  splitHalfReliability,
  withinTraceSpearman,
  type LocalizedTrace,
} from '@rred/core';
import { Tokenizer } from '@rred/lm';
import {
  TASK_ALPHABET,
  buildDatasets,
  firstUncorrectedError,
  problemFromRecord,
  sftExamples,
  SftConfigSchema,
  THINK_CLOSE,
  tokenSpanOfChars,
} from '@rred/tasks';

const tokenizer = Tokenizer.fromAlphabet(TASK_ALPHABET);

/** Token spans [start, end) of the thinking's lines, each with its trailing newline (newline segmentation). */
function lineSegments(completion: readonly number[], thinkEnd: number): [number, number][] {
  const newline = tokenizer.encode('\n')[0];
  const segments: [number, number][] = [];
  let start = 0;
  for (let t = 0; t < thinkEnd; t++) {
    if (completion[t] === newline || t === thinkEnd - 1) {
      segments.push([start, t + 1]);
      start = t + 1;
    }
  }
  return segments;
}

/** MC estimate of V from `n` Bernoulli(v) draws. */
const mcValue = (v: number, n: number, rng: Rng) => mean(Array.from({ length: n }, () => (rng.next() < v ? 1 : 0)));
const deltas = (values: readonly number[]) => values.slice(1).map((v, k) => v - values[k]);

describe('credit-quality statistics on oracle-labelled traces', () => {
  const records = buildDatasets(5, { train: 0, validation: 0, 'eval-easy': 0, 'eval-medium': 40, 'eval-hard': 0 })['eval-medium'];
  const problems = records.map(problemFromRecord);
  const examples = sftExamples(problems, SftConfigSchema.parse({ errorRate: 1, correctionRate: 0 }), new Rng(6));
  const rng = new Rng(7);
  const traces = examples.map((ex, i) => {
    const completion = tokenizer.encode(`${ex.thinking}${THINK_CLOSE}${ex.answer}<eos>`);
    const thinkEnd = completion.indexOf(tokenizer.endThink);
    const error = firstUncorrectedError(problems[i], tokenizer.decode(completion.slice(0, thinkEnd)));
    if (!error) throw new Error(`example ${i}: the oracle found no error in an uncorrected SFT error example`);
    const [first] = tokenSpanOf(completion, error.start, error.end);
    const segments = lineSegments(completion, thinkEnd);
    const errorSegment = segments.findIndex(([s, e]) => s <= first && first < e);
    // true values: 0.8 up to the state before the wrong line, 0.05 from the state after it
    const truth = Array.from({ length: segments.length + 1 }, (_, k) => (k <= errorSegment ? 0.8 : 0.05));
    const halfA = truth.map((v) => mcValue(v, 10, rng));
    const halfB = truth.map((v) => mcValue(v, 10, rng));
    const full = halfA.map((a, k) => (a + halfB[k]) / 2); // the n = 20 proxy
    return { errorSegment, segments, trueDelta: deltas(truth), a: deltas(halfA), b: deltas(halfB), proxy: deltas(full) };
  });

  it('the oracle error lands on one line segment of each trace', () => {
    for (const t of traces) {
      expect(t.errorSegment).toBeGreaterThanOrEqual(0);
      expect(t.trueDelta[t.errorSegment]).toBeCloseTo(-0.75, 12);
    }
  });

  it('split-half reliability of the proxy, its ceiling, and the scores of the proxy as a credit', () => {
    const reliability = splitHalfReliability(traces, new Rng(8), { resamples: 300 });
    expect(reliability.traces).toBe(40);
    expect(reliability.pooled.reliability.value).toBeCloseTo(spearmanBrown(reliability.pooled.halfCorrelation, 2), 12);
    expect(reliability.pooled.ceiling.value).toBeCloseTo(reliabilityCeiling(reliability.pooled.reliability.value), 12);
    // one large drop per trace among small noise: the halves agree well
    expect(reliability.pooled.reliability.value).toBeGreaterThan(0.5);
    expect(reliability.pooled.reliability.lo).toBeLessThan(reliability.pooled.reliability.value);

    const within = withinTraceSpearman(
      traces.map((t) => ({ x: t.proxy, y: t.trueDelta })),
      new Rng(9),
      { resamples: 300 },
    );
    expect(within.tracesUsed).toBe(40); // eval-medium has 5–6 lines, so ≥ 3 segments, and ΔV_true is never constant
    expect(within.value).toBeGreaterThan(0.2);

    const labelled: LocalizedTrace[] = traces.map((t) => ({ credits: t.proxy, errorSegment: t.errorSegment }));
    const top1 = localizationTop1(labelled, new Rng(10), { resamples: 300 });
    expect(top1.chance).toBeGreaterThan(1 / 6 - 1e-12);
    expect(top1.chance).toBeLessThan(1 / 5 + 1e-12);
    expect(top1.value).toBeGreaterThan(0.9); // a drop of 0.75 against noise of ≈ 0.13
    expect(localizationAuc(labelled)).toBeGreaterThan(0.95);
    // position as a credit (later = lower) knows nothing of the error: near chance, far below the proxy
    const position = traces.map((t) => ({ credits: t.proxy.map((_, k) => -k), errorSegment: t.errorSegment }));
    expect(localizationTop1(position, new Rng(10), { resamples: 10 }).value).toBeLessThan(0.5);
  });
});

function tokenSpanOf(completion: readonly number[], start: number, end: number): [number, number] {
  return tokenSpanOfChars(
    completion.map((id) => tokenizer.tokenText(id)),
    start,
    end,
  );
}
