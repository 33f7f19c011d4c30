import * as path from 'path';
import { ProgressBar, repoRoot, type Rng, UserError } from '@rred/core';
import type { ContinuationReward, SpecialTokens } from '@rred/estimators';
import { bedOfCheckpoint, buildTrace, type Tokenizer, type Trace } from '@rred/lm';
import { checkRecordsFit } from '@rred/evaluation';
import type { Verifier } from './dataset';
import type { ExperimentLM } from './model';
import type { McVarianceConfig } from './mc-variance-config';
import { segment, type Segment, type SegmentationConfig } from '@rred/segmentation';
import { COMPOSITE_SPLITS, FREE_FORM_SPLITS, promptTokens, readJsonl, SPLITS, verify, type TaskRecord } from '@rred/tasks';

/**
 * The split file a checkpoint reads: a bed with its own rendering of the problems (a registry entry with
 * `splitDir`, e.g. freeForm's prose) reads `<splitDir>/<split>`; every other checkpoint the split itself.
 */
export function bedSplit(split: string, checkpoint: string): string {
  const dir = bedOfCheckpoint(checkpoint)?.splitDir;
  return dir && !split.includes('/') ? `${dir}/${split}` : split;
}

/** The first `count` problems of a split's shipped JSONL (packages/tasks/data/<split>.jsonl; `free-form/eval-medium` is the free-form bed's). */
export function loadSplit(split: string, count: number): TaskRecord[] {
  const shipped = [...SPLITS.filter((s) => s !== 'train'), ...Object.keys(COMPOSITE_SPLITS), ...FREE_FORM_SPLITS];
  if (!shipped.includes(split)) {
    throw new UserError(`split '${split}' has no shipped file; expected one of ${shipped.join(', ')}`);
  }
  const records = readJsonl(splitFile(split));
  if (records.length < count) throw new UserError(`split ${split} has ${records.length} problems, ${count} were asked for`);
  return records.slice(0, count);
}

/**
 * Before anything is written: the first `count` problems of `split` (the checkpoint's file of it, see bedSplit) exist, are
 * written in the checkpoint's alphabet, and each prompt fits the checkpoint's context together with
 * every budget of new tokens. A problem that does not is named by file, line and record id; a prompt
 * that alone fills the context is blamed on the record, not on the budget.
 */
export function checkSplitFits(split: string, count: number, checkpoint: string, budgets: Parameters<typeof checkRecordsFit>[3]): void {
  const file = bedSplit(split, checkpoint);
  checkRecordsFit(splitFile(file), loadSplit(file, count), checkpoint, budgets);
}

/**
 * Before any run opens: the problems are in the checkpoint's alphabet, and each prompt + rollout, and
 * prompt + MC horizon when it bounds the whole completion, fits the checkpoint's context.
 */
export function checkMcFits(config: Pick<McVarianceConfig, 'checkpoint' | 'split' | 'problems' | 'rollout' | 'mc'>): void {
  const budgets = [{ field: 'rollout.maxNewTokens', tokens: config.rollout.maxNewTokens }];
  if (config.mc.horizon === 'completion') budgets.push({ field: 'mc.maxNewTokens', tokens: config.mc.maxNewTokens });
  checkSplitFits(config.split, config.problems, config.checkpoint, budgets);
}

/** The shipped JSONL of a split. */
function splitFile(split: string): string {
  return path.join(repoRoot(), 'packages', 'tasks', 'data', `${split}.jsonl`);
}

/** The exit points of a trace (Sec. 3.1), its tokens decoded by the model's own tokenizer. */
export function segmentTrace(lm: ExperimentLM, trace: Trace, config: SegmentationConfig): Segment[] {
  return segment(trace, config, (id) => lm.tokenizer.decode([id]));
}

/** `</think>`, `<eos>` and, when the alphabet has it as one token, the line break (the value term's start rules split references at it). */
export function specialTokens(tokenizer: Tokenizer): SpecialTokens {
  let newline: number[] = [];
  try {
    newline = tokenizer.encode('\n');
  } catch {
    // an alphabet without a line break: the start rules then refuse with their own message
  }
  return { endThink: tokenizer.endThink, eos: tokenizer.eos, ...(newline.length === 1 ? { newline: newline[0] } : {}) };
}

/**
 * ζ of a sampled continuation from an exit point inside the thinking span: the continuation holds the
 * rest of the thinking, `</think>`, the answer and `<eos>`, so the verifier can judge it on its own
 * (the prompt's `<think>` and the earlier thinking hold no `</think>`).
 */
export function continuationReward(tokenizer: Tokenizer, record: TaskRecord, verifier: Verifier = verify): ContinuationReward {
  return (continuation, stopped) => verifier(tokenizer.decode(continuation), record.answer, stopped).reward;
}

interface RolloutOptions {
  temperature: number;
  maxNewTokens: number;
  batchSize: number;
  /** ζ of a rollout; default the task's verify. */
  verifier?: Verifier;
}

/**
 * One rollout per problem at the given temperature (T = 1 for the paper's on-policy traces), verified
 * into a Trace. Every draw comes from `rng` (one fork per batch), so the traces are a function of the seed.
 */
export async function generateRollouts(lm: ExperimentLM, records: readonly TaskRecord[], opts: RolloutOptions, rng: Rng): Promise<Trace[]> {
  const tokenizer = lm.tokenizer;
  const traces: Trace[] = [];
  const bar = new ProgressBar('rollouts', records.length);
  for (let start = 0; start < records.length; start += opts.batchSize) {
    const chunk = records.slice(start, start + opts.batchSize);
    const prompts = chunk.map((r) => promptTokens(tokenizer, r.problem));
    for (const p of prompts) {
      if (p.length + opts.maxNewTokens > lm.maxLength) {
        throw new UserError(
          `rollout: prompt of ${p.length} tokens + maxNewTokens ${opts.maxNewTokens} exceeds the model's context of ${lm.maxLength}`,
        );
      }
    }
    const { results } = await lm.sample(
      prompts,
      { temperature: opts.temperature, topP: 1, maxNewTokens: opts.maxNewTokens, stopToken: tokenizer.eos },
      rng.fork(`rollout-batch-${start}`),
    );
    results.forEach((sample, i) => {
      const v = (opts.verifier ?? verify)(tokenizer.decode(sample.tokens), chunk[i].answer, !sample.truncated);
      traces.push(buildTrace(tokenizer, { problemId: chunk[i].id, prompt: prompts[i], sample, answer: v.answer, reward: v.reward }));
    });
    bar.tick(chunk.length);
  }
  return traces;
}
