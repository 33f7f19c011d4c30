import { mean, sampleStandardDeviation, STORE_FLAG, UserError, writeOutputFile } from '@rred/core';
import { tokenWeights } from '@rred/estimators';
import type { Trace } from '@rred/lm';
import { checkOutputFile, resolveStorePath, type StoredTrace } from '@rred/results-store';
import { withStore, type Command } from '../command';
import { ALLOW_PARTIAL_FLAG, checkFinished } from './partial';

/** One JSONL line of `rred export-weights`: everything a trainer needs for one completion. */
interface WeightRecord {
  run: string;
  /** The run's status: FINISHED, or (exported with --allow-partial) RUNNING, KILLED or FAILED. */
  run_status: string;
  key: string;
  problem_id: string;
  method: string;
  prompt_ids: number[];
  completion_ids: number[];
  /** Thinking segments as [start, end) completion positions; the answer (think_end..) is its own segment. */
  segments: [number, number][];
  think_end: number;
  reward: number;
  /** A_i: the group-normalized reward of this completion among the run's completions of the same problem. */
  advantage: number;
  /** σ_t per completion token (Σ_t σ_t = Σ_k σ_k share; see tokenWeights in @rred/estimators). */
  sigma: number[];
  /** A_i · σ_t · |o_i| per completion token: the per-token advantage a trainer's loss multiplies log-ratios by. */
  coefficient: number[];
}

/**
 * GRPO advantages within each problem's group of completions: A_i = (r_i − mean_g r) / std_g r with the
 * sample std ('group', GRPO), or r_i − mean_g r ('none', Dr. GRPO). A group of one, or with std 0, gets 0.
 */
function advantages(traces: StoredTrace[], scale: 'group' | 'none'): number[] {
  const groups = new Map<string, number[]>();
  traces.forEach((t) => groups.set(t.trace.problemId, [...(groups.get(t.trace.problemId) ?? []), t.trace.reward]));
  return traces.map((t) => {
    const g = groups.get(t.trace.problemId)!;
    if (g.length < 2) return 0;
    const centred = t.trace.reward - mean(g);
    if (scale === 'none') return centred;
    const sd = sampleStandardDeviation(g);
    return sd > 0 ? centred / sd : 0;
  });
}

function recordOf(run: string, status: string, t: StoredTrace, method: string, advantage: number): WeightRecord {
  const rows = t.estimates.filter((e) => e.method === method && e.exitPoint > 0).sort((a, b) => a.exitPoint - b.exitPoint);
  if (rows.length !== t.segments.length || rows.some((r) => r.sigma === null)) {
    throw new UserError(
      `export-weights: trace '${t.key}' of run ${run} has ${rows.filter((r) => r.sigma !== null).length} σ for method '${method}' and ${t.segments.length} segments; ` +
        `pick a method that stores σ (--method; rredcot does)`,
    );
  }
  const sigmaK = rows.map((r) => r.sigma as number);
  const sigma = tokenWeights(t.trace as unknown as Trace, t.segments, sigmaK);
  const O = t.trace.completion.length;
  return {
    run,
    run_status: status,
    key: t.key,
    problem_id: t.trace.problemId,
    method,
    prompt_ids: t.trace.prompt,
    completion_ids: t.trace.completion,
    segments: t.segments.map((s) => [s.start, s.end]),
    think_end: t.trace.thinkEnd,
    reward: t.trace.reward,
    advantage,
    sigma,
    coefficient: sigma.map((s) => advantage * s * O),
  };
}

export const exportWeights: Command = {
  name: 'export-weights',
  summary: "write a run's per-token σ and coefficients A·σ·|o| as JSONL, for a trainer at scale (TRL, verl: see the README)",
  flags: {
    run: { type: 'string', value: 'ID', description: 'the run whose traces and σ to export (an id prefix works)' },
    format: { type: 'string', value: 'FORMAT', description: 'output format; jsonl is the one there is', default: 'jsonl' },
    method: { type: 'string', value: 'METHOD', description: 'the estimator whose stored σ to use', default: 'rredcot' },
    scale: {
      type: 'string',
      value: 'SCALE',
      description: "advantage scaling: 'group' (÷ group std, GRPO) or 'none' (Dr. GRPO)",
      default: 'group',
    },
    out: {
      type: 'string',
      value: 'FILE',
      path: true,
      description: 'output file (default: stdout; written atomically, only over a regular file)',
    },
    'allow-partial': ALLOW_PARTIAL_FLAG,
    store: STORE_FLAG,
  },
  run: (args, ctx) => {
    const run = args.flags.run as string | undefined;
    if (!run) throw new UserError('export-weights: --run ID is required');
    const format = (args.flags.format as string | undefined) ?? 'jsonl';
    if (format !== 'jsonl') throw new UserError(`export-weights: --format ${format}: expected jsonl`);
    const scale = (args.flags.scale as string | undefined) ?? 'group';
    if (scale !== 'group' && scale !== 'none') throw new UserError(`export-weights: --scale ${scale}: expected group or none`);
    const method = (args.flags.method as string | undefined) ?? 'rredcot';
    const out = args.flags.out as string | undefined;
    if (out) checkOutputFile(out, resolveStorePath(args.flags.store as string | undefined, ctx.env), 'export-weights: --out');
    return withStore(args, ctx, (store) => {
      const id = store.resolveRunId(run);
      const status = store.getRun(id).status;
      const note = checkFinished('export-weights', [{ id, status }], Boolean(args.flags['allow-partial']));
      const traces = store.traces(id);
      if (traces.length === 0) throw new UserError(`export-weights: run ${id} has no stored traces`);
      const methods = [...new Set(traces.flatMap((t) => t.estimates.map((e) => e.method)))].sort();
      if (!methods.includes(method))
        throw new UserError(
          `export-weights: --method ${method}: unknown method for run ${id}, which stores estimates of ${methods.join(', ') || 'no method'}`,
        );
      const A = advantages(traces, scale);
      const text = traces.map((t, i) => JSON.stringify(recordOf(id, status, t, method, A[i]))).join('\n') + '\n';
      if (out) {
        writeOutputFile(out, text, 'export-weights: --out');
        ctx.out(`wrote ${traces.length} traces of run ${id} to ${out}${note}\n`);
      } else ctx.out(text);
    });
  },
};
