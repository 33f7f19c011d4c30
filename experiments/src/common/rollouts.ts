import * as path from 'path';
import { ProgressBar, repoRoot, type Rng, UserError } from '@rred/core';
import type { ContinuationReward, SpecialTokens } from '@rred/estimators';
import { buildTrace, type Tokenizer, type Trace, type TransformerLM } from '@rred/lm';
import { COMPOSITE_SPLITS, promptTokens, readJsonl, SPLITS, verify, type TaskRecord } from '@rred/tasks';

/** The first `count` problems of a split's shipped JSONL (packages/tasks/data/<split>.jsonl). */
export function loadSplit(split: string, count: number): TaskRecord[] {
  const shipped = [...SPLITS.filter((s) => s !== 'train'), ...Object.keys(COMPOSITE_SPLITS)];
  if (!shipped.includes(split)) {
    throw new UserError(`split '${split}' has no shipped file; expected one of ${shipped.join(', ')}`);
  }
  const records = readJsonl(path.join(repoRoot(), 'packages', 'tasks', 'data', `${split}.jsonl`));
  if (records.length < count) throw new UserError(`split ${split} has ${records.length} problems, ${count} were asked for`);
  return records.slice(0, count);
}

export function specialTokens(tokenizer: Tokenizer): SpecialTokens {
  return { endThink: tokenizer.endThink, eos: tokenizer.eos };
}

/**
 * ζ of a sampled continuation from an exit point inside the thinking span: the continuation holds the
 * rest of the thinking, `</think>`, the answer and `<eos>`, so the verifier can judge it on its own
 * (the prompt's `<think>` and the earlier thinking hold no `</think>`).
 */
export function continuationReward(tokenizer: Tokenizer, record: TaskRecord): ContinuationReward {
  return (continuation, stopped) => verify(tokenizer.decode(continuation), record.answer, stopped).reward;
}

export interface RolloutOptions {
  temperature: number;
  maxNewTokens: number;
  batchSize: number;
}

/**
 * One rollout per problem at the given temperature (T = 1 for the paper's on-policy traces), verified
 * into a Trace. Every draw comes from `rng` (one fork per batch), so the traces are a function of the seed.
 */
export async function generateRollouts(lm: TransformerLM, records: readonly TaskRecord[], opts: RolloutOptions, rng: Rng): Promise<Trace[]> {
  const tokenizer = lm.tokenizer;
  const traces: Trace[] = [];
  const bar = new ProgressBar('rollouts', records.length);
  for (let start = 0; start < records.length; start += opts.batchSize) {
    const chunk = records.slice(start, start + opts.batchSize);
    const prompts = chunk.map((r) => promptTokens(tokenizer, r.problem));
    for (const p of prompts) {
      if (p.length + opts.maxNewTokens > lm.maxLength) {
        throw new UserError(`rollout: prompt of ${p.length} tokens + maxNewTokens ${opts.maxNewTokens} exceeds the model's context of ${lm.maxLength}`);
      }
    }
    const { results } = await lm.sample(
      prompts,
      { temperature: opts.temperature, topP: 1, maxNewTokens: opts.maxNewTokens, stopToken: tokenizer.eos },
      rng.fork(`rollout-batch-${start}`),
    );
    results.forEach((sample, i) => {
      const v = verify(tokenizer.decode(sample.tokens), chunk[i].answer, !sample.truncated);
      traces.push(buildTrace(tokenizer, { problemId: chunk[i].id, prompt: prompts[i], sample, answer: v.answer, reward: v.reward }));
    });
    bar.tick(chunk.length);
  }
  return traces;
}
