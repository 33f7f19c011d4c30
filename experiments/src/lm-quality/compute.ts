import { mean, ProgressBar, type Rng } from '@rred/core';
import type { TransformerLM } from '@rred/lm';
import { EVAL_SPLITS, PHRASING_BARS, THINK_CLOSE, phrasingVariety, promptTokens, verify, type TaskRecord } from '@rred/tasks';
import { exitPointStudy, isEarlyExit, missesLastSubgoal } from './exit-points';
import type { ComputeContext } from '../common/experiment';
import { loadModel } from '../common/model';
import { bedSplit, loadSplit } from '../common/rollouts';
import type { LmQualityConfig } from './config';
import { meanEntropyByRole } from './token-classes';

interface Completion {
  record: TaskRecord;
  tokens: number[];
  entropies: number[];
  reward: number;
  /** Composite answers: which parts were right. */
  parts?: boolean[];
}

/** Every record `copies` times, sampled in batches; each batch draws from its own fork of `rng`. */
async function complete(
  lm: TransformerLM,
  records: readonly TaskRecord[],
  copies: number,
  temperature: number,
  c: LmQualityConfig,
  rng: Rng,
  label: string,
): Promise<Completion[]> {
  const jobs = records.flatMap((record) => Array.from({ length: copies }, () => record));
  const out: Completion[] = [];
  const bar = new ProgressBar(label, jobs.length);
  for (let start = 0; start < jobs.length; start += c.batchSize) {
    const chunk = jobs.slice(start, start + c.batchSize);
    const prompts = chunk.map((r) => promptTokens(lm.tokenizer, r.problem));
    const { results } = await lm.sample(
      prompts,
      { temperature, topP: 1, maxNewTokens: c.maxNewTokens, stopToken: lm.tokenizer.eos },
      rng.fork(`${label}-${start}`),
    );
    results.forEach((s, i) => {
      const v = verify(lm.tokenizer.decode(s.tokens), chunk[i].answer, !s.truncated);
      out.push({ record: chunk[i], tokens: s.tokens, entropies: s.entropies, reward: v.reward, ...(v.parts ? { parts: v.parts } : {}) });
    });
    bar.tick(chunk.length);
  }
  return out;
}

/**
 * Greedy accuracy and completion lengths on every eval split; on the default split, temperature-1
 * samples for the mixed-outcome fraction and the entropy of result vs format tokens. All numbers go
 * to the run's metrics; the report is rendered from them.
 */
export async function computeLmQuality({ run, config, rng }: ComputeContext<LmQualityConfig>): Promise<void> {
  const { lm } = await loadModel(config.checkpoint);
  for (const split of EVAL_SPLITS) {
    const records = loadSplit(bedSplit(split, config.checkpoint), config.problemsPerSplit);
    const greedy = await complete(lm, records, 1, 0, config, rng.fork(`greedy-${split}`), `greedy ${split}`);
    const lengths = greedy.map((g) => g.tokens.length);
    run.logMetrics({
      [`greedy.${split}.accuracy`]: greedy.filter((g) => g.reward > 0).length / greedy.length,
      [`greedy.${split}.problems`]: greedy.length,
      [`greedy.${split}.meanLength`]: mean(lengths),
      [`greedy.${split}.maxLength`]: Math.max(...lengths),
    });
  }
  const records = loadSplit(bedSplit(config.defaultSplit, config.checkpoint), config.problemsPerSplit);
  const sampled = await complete(lm, records, config.samplesPerProblem, 1, config, rng.fork('t1'), `T=1 ${config.defaultSplit}`);
  let mixed = 0;
  for (let i = 0; i < records.length; i++) {
    const rewards = sampled.slice(i * config.samplesPerProblem, (i + 1) * config.samplesPerProblem).map((s) => s.reward);
    if (rewards.some((r) => r > 0) && rewards.some((r) => r === 0)) mixed++;
  }
  const roles = meanEntropyByRole(
    sampled.map((s) => ({ texts: s.tokens.map((t) => lm.tokenizer.tokenText(t)), entropies: s.entropies })),
    records[0]?.meta.format === 'prose',
  );
  run.logMetrics({
    't1.accuracy': sampled.filter((s) => s.reward > 0).length / sampled.length,
    't1.mixedFraction': mixed / records.length,
    't1.entropy.result': roles.result.mean,
    't1.entropy.format': roles.format.mean,
    't1.entropy.other': roles.other.mean,
    't1.entropy.resultTokens': roles.result.count,
    't1.entropy.formatTokens': roles.format.count,
    't1.entropyRatio': roles.result.mean / roles.format.mean,
    't1.stoppedShortFraction': sampled.filter((s) => isEarlyExit(lm.tokenizer.decode(s.tokens), s.record)).length / sampled.length,
    't1.missedLastSubgoalFraction':
      sampled.filter((s) => missesLastSubgoal(lm.tokenizer.decode(s.tokens), s.record)).length / sampled.length,
    ...phrasingMetrics(sampled, lm),
  });
  if (config.compositeSplit) {
    const split = config.compositeSplit;
    const greedy = await complete(
      lm,
      loadSplit(split, config.problemsPerSplit),
      1,
      0,
      config,
      rng.fork(`greedy-${split}`),
      `greedy ${split}`,
    );
    const parts = greedy.flatMap((g) => g.parts ?? []);
    run.logMetrics({
      [`composite.${split}.accuracy`]: greedy.filter((g) => g.reward > 0).length / greedy.length,
      [`composite.${split}.partAccuracy`]: parts.filter(Boolean).length / parts.length,
      [`composite.${split}.problems`]: greedy.length,
    });
  }
  if (config.calibration) {
    const study = await exitPointStudy(
      lm,
      loadSplit(bedSplit(config.defaultSplit, config.checkpoint), Math.max(config.calibration.problems, config.calibration.termsProblems)),
      config.calibration,
      config.batchSize,
      rng.fork('exit-points'),
    );
    // one step per exit point / per correct trace, so the renderer reads them back in order
    study.points.forEach((p, i) =>
      run.logMetrics({ 'calibration.forced': p.forced, 'calibration.mc': p.mc, 'calibration.position': p.position }, i),
    );
    study.terms.forEach((t, i) => run.logMetrics({ 'terms.valueStep1': t.valueStep1, 'terms.immediateGain': t.immediateGain }, i));
    run.logMetrics({
      'calibration.traces': study.traces,
      'calibration.points': study.points.length,
      'calibration.meanAbsGap': mean(study.points.map((p) => Math.abs(p.forced - p.mc))),
      'terms.correctTraces': study.terms.length,
      'terms.valueStep1.mean': mean(study.terms.map((t) => t.valueStep1)),
      'terms.immediateGain.mean': mean(study.terms.map((t) => t.immediateGain)),
    });
  }
}

/** Metric names of the kinds of line: the operators spelled out. */
const KIND_NAMES: Record<string, string> = { '+': 'plus', '-': 'minus', '*': 'times' };

/**
 * The free-form bed's phrasing bars on the first PHRASING_BARS.samples T = 1 samples (@rred/tasks
 * phrasingVariety): templates seen per kind of line, the share of traces ordered otherwise than the
 * reference, the share of lines in none of the templates. Nothing for a checkpoint of the notation.
 */
function phrasingMetrics(sampled: readonly Completion[], lm: TransformerLM): Record<string, number> {
  if (sampled.length === 0 || sampled[0].record.meta.format !== 'prose') return {};
  const samples = sampled.slice(0, PHRASING_BARS.samples).map((s) => {
    const text = lm.tokenizer.decode(s.tokens);
    const close = text.indexOf(THINK_CLOSE);
    return { record: s.record, thinking: close < 0 ? text : text.slice(0, close) };
  });
  const v = phrasingVariety(samples);
  return {
    'phrasing.samples': v.traces,
    'phrasing.reorderedShare': v.reorderedShare,
    'phrasing.unreadLineShare': v.unreadLineShare,
    ...Object.fromEntries(Object.entries(v.templates).map(([kind, n]) => [`phrasing.templates.${KIND_NAMES[kind] ?? kind}`, n])),
  };
}
