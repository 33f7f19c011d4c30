import { mean, parseConfig, readJsonFile, sampleStandardDeviation, STORE_FLAG, UserError, writeOutputFile } from '@rred/core';
import { sigmaConfigSchema, tokenWeights, traceSigma, type SigmaConfig } from '@rred/estimators';
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
  /** Where σ came from: 'trained' = the stored credits r_k and A_i under `sigma_config` (what GRPO trains with), 'stored' = the stored σ column. */
  sigma_from: SigmaFrom;
  /** The σ config of 'trained' (null for 'stored'). */
  sigma_config: SigmaConfig | null;
  /** σ_t per completion token (steps of estimators/src/sigma.ts). */
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

type SigmaFrom = 'trained' | 'stored';

/**
 * σ_t of one stored trace. 'stored': the stored σ_k (the estimator's reported σ: its config's normalization,
 * no advantage) spread by `tokenWeights`. 'trained': what the GRPO hook computes from the same credits
 * (`traceSigma` under `config` with the trace's A_i); like the hook, A = 0 or a non-finite credit (the
 * estimator fell back) gives uniform 1/|o|.
 */
function sigmaOf(run: string, t: StoredTrace, method: string, advantage: number, from: SigmaFrom, config: SigmaConfig): number[] {
  const rows = t.estimates.filter((e) => e.method === method && e.exitPoint > 0).sort((a, b) => a.exitPoint - b.exitPoint);
  const field = from === 'stored' ? 'sigma' : 'credit';
  const have = rows.filter((r) => r[field] !== null && r[field] !== undefined).length;
  if (rows.length !== t.segments.length || have !== rows.length) {
    throw new UserError(
      `export-weights: trace '${t.key}' of run ${run} has ${have} ${from === 'stored' ? 'σ' : 'credits'} for method '${method}' and ${t.segments.length} segments; ` +
        `pick a method that stores them (--method; rredcot does)`,
    );
  }
  const trace = t.trace as unknown as Trace;
  if (from === 'stored')
    return tokenWeights(
      trace,
      t.segments,
      rows.map((r) => r.sigma as number),
    );
  const credits = rows.map((r) => r.credit as number);
  const O = trace.completion.length;
  if (advantage === 0 || !credits.every(Number.isFinite)) return trace.completion.map(() => 1 / Math.max(1, O));
  return traceSigma(trace, t.segments, credits, advantage, config);
}

function recordOf(
  run: string,
  status: string,
  t: StoredTrace,
  method: string,
  advantage: number,
  from: SigmaFrom,
  config: SigmaConfig,
): WeightRecord {
  const sigma = sigmaOf(run, t, method, advantage, from, config);
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
    sigma_from: from,
    sigma_config: from === 'trained' ? config : null,
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
    method: { type: 'string', value: 'METHOD', description: 'the estimator whose stored credits (or σ) to use', default: 'rredcot' },
    sigma: {
      type: 'string',
      value: 'FROM',
      description:
        "'trained': σ from the stored credits and each trace's advantage under the σ config a GRPO run trains with (--sigma-config); " +
        "'stored': the stored σ column (the estimator's own normalization, no sign handling)",
      default: 'trained',
    },
    'sigma-config': {
      type: 'string',
      value: 'FILE',
      path: true,
      description: "JSON σ config for --sigma trained (sigmaConfigSchema, estimators/src/sigma.ts); default the trainer's default",
    },
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
    const from = (args.flags.sigma as string | undefined) ?? 'trained';
    if (from !== 'trained' && from !== 'stored') throw new UserError(`export-weights: --sigma ${from}: expected trained or stored`);
    const configFile = args.flags['sigma-config'] as string | undefined;
    if (configFile && from === 'stored') throw new UserError('export-weights: --sigma-config applies to --sigma trained only');
    const sigmaConfig = parseConfig(
      sigmaConfigSchema,
      configFile ? readJsonFile(configFile, '--sigma-config') : {},
      configFile ?? 'σ config',
    );
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
      const text = traces.map((t, i) => JSON.stringify(recordOf(id, status, t, method, A[i], from, sigmaConfig))).join('\n') + '\n';
      if (out) {
        writeOutputFile(out, text, 'export-weights: --out');
        ctx.out(`wrote ${traces.length} traces of run ${id} to ${out}${note}\n`);
      } else ctx.out(text);
    });
  },
};
