/**
 * The plan's child-minutes, printed before anything trains: how many children each stage adds (the
 * search's candidates × seeds, then the comparison's seeds beyond the search's, which it reuses) and what
 * they cost — per method, the mean wall time of the FINISHED children of the same steps in the store,
 * else a prior from the committed comparison f12bee993e08 (its s/step, two single-thread children on 2 cores).
 */
import { mean } from '@rred/core';
import type { Store } from '@rred/results-store';
import { FINETUNE_EXPERIMENT } from './children';
import type { FinetuneConfig, Method } from './config';
import { childSizes, seedsOf, testBeds } from './plan';

/** Prior seconds per step (f12bee993e08; the alignment-free softStart value term scores ~1,100 tokens per trace against 150). */
const PRIOR_STEP_SECONDS: Record<Method, number> = {
  grpo: 0.7,
  'grpo-ref-sft': 0.8,
  rredcot: 2.0,
  'sigma-shuffle': 2.0,
  'rredcot-oracle-aligned': 0.98,
  'signed-position': 0.72,
  'rredcot-literal': 1.03,
  'rredcot-l1': 0.93,
  'rredcot-both': 0.91,
  'rredcot-both-l1': 1.44,
  'rredcot-own': 0.83,
  grail: 1.22,
  verigate: 2.2,
  'verigate-oracle': 1.16,
  oracle: 0.67,
  mc: 2.43,
};
/** Prior minutes of validation and the final and best evaluations of one child. */
const PRIOR_EVAL_MINUTES = 1.5;

interface BudgetRow {
  testBed: string;
  method: Method;
  /** Children of the search (candidates × search seeds) and of the comparison beyond them. */
  search: number;
  comparison: number;
  minutesPerChild: number;
  measured: boolean;
}

/** Child counts per bed and method; the search's children at the chosen value count once. */
export function budgetRows(config: FinetuneConfig, store?: Store): BudgetRow[] {
  const steps = childSizes(config).steps;
  const n = Math.min(config.search.seeds, config.seeds.length);
  const measured = store ? measuredMinutes(store, steps) : new Map<string, number>();
  const rows: BudgetRow[] = [];
  for (const bed of testBeds(config)) {
    for (const method of bed.methods) {
      const lrSearched = config.search.methods.includes(method);
      const sftSearched = method === 'grpo-ref-sft' && config.search.referenceSft.length > 0;
      const candidates = (lrSearched ? config.search.learningRates.length : 0) + (sftSearched ? config.search.referenceSft.length : 0);
      const seeds = seedsOf(config, method).length;
      const reused = candidates > 0 ? Math.min(n, seeds) : 0;
      const m = measured.get(method);
      rows.push({
        testBed: bed.name,
        method,
        search: candidates * n,
        comparison: seeds - reused,
        minutesPerChild: m ?? (steps * PRIOR_STEP_SECONDS[method]) / 60 + PRIOR_EVAL_MINUTES,
        measured: m !== undefined,
      });
    }
  }
  return rows;
}

/** Mean wall minutes of FINISHED finetune children per method, at `steps` steps. */
function measuredMinutes(store: Store, steps: number): Map<string, number> {
  const by = new Map<string, number[]>();
  for (const r of store.listRuns({ experiment: FINETUNE_EXPERIMENT, status: 'FINISHED' })) {
    if (r.parentRunId === null || r.endTime === null || Number(r.params.steps) !== steps) continue;
    const method = r.params.method;
    by.set(method, [...(by.get(method) ?? []), (r.endTime - r.startTime) / 60000]);
  }
  return new Map([...by].map(([m, xs]) => [m, mean(xs)]));
}

/** The lines printed before the plan starts. */
export function budgetLines(rows: readonly BudgetRow[]): string[] {
  const total = (pick: (r: BudgetRow) => number) => rows.reduce((a, r) => a + pick(r), 0);
  const minutes = total((r) => (r.search + r.comparison) * r.minutesPerChild);
  return [
    `finetune plan: ${total((r) => r.search)} search children + ${total((r) => r.comparison)} comparison children ≈ ${Math.round(minutes)} child-minutes ` +
      `(${(minutes / 60).toFixed(1)} child-hours; finished children in the store are reused, not counted out here)`,
    ...rows.map(
      (r) =>
        `  ${r.testBed}.${r.method}: ${r.search} search + ${r.comparison} comparison × ${r.minutesPerChild.toFixed(1)} min (${r.measured ? 'measured' : 'prior'})`,
    ),
  ];
}
