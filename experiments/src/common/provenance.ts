import type { RunDetail, Store } from '@rred/results-store';

/** The facts a rendered table must state about one run (all read from the store). */
interface RunFacts {
  id: string;
  experiment: string;
  status: string;
  /** `git <commit 12> (<clean | dirty, diff sha256 …>)` plus the code-state tags: what the runs are grouped by. */
  code: string;
  seed: string;
  config: string;
  checkpoint: string | null;
  backend: string;
}

function factsOf(run: RunDetail): RunFacts {
  const git = run.context.git;
  const state = git.dirty === null ? 'unknown state' : git.dirty ? `dirty, diff sha256 ${git.diffSha256?.slice(0, 12) ?? '?'}` : 'clean';
  const code = run.tags['code.experiments']
    ? ` [experiments/: ${run.tags['code.experiments']}; packages/: ${run.tags['code.packages'] ?? 'unknown'}]`
    : '';
  return {
    id: run.id,
    experiment: run.experiment,
    status: run.status,
    code: `git ${git.commit.slice(0, 12)} (${state})${code}`,
    seed: String(run.seed ?? '—'),
    config: run.configHash.slice(0, 12),
    checkpoint: run.tags.checkpointHash ? run.tags.checkpointHash.slice(0, 12) : null,
    backend: run.context.backend,
  };
}

/** One run on one line (the CSV comment header). */
function provenanceLine(f: RunFacts): string {
  const checkpoint = f.checkpoint ? `, checkpoint ${f.checkpoint}` : '';
  return `run ${f.id} (${f.experiment}, ${f.status}), ${f.code}, seed ${f.seed}, config ${f.config}${checkpoint}, backend ${f.backend}`;
}

/**
 * The runs grouped by code state (commit, dirty state, backend), one line per group: what every run of
 * the group shares (experiment, status, checkpoint) is said once, then each run's id, seed and config hash.
 * Groups keep the order of their first run.
 */
function provenanceGroups(facts: readonly RunFacts[]): string[] {
  const groups = new Map<string, RunFacts[]>();
  for (const f of facts) {
    const key = `${f.code}, backend ${f.backend}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.entries()].map(([key, runs]) => {
    const shared = (pick: (f: RunFacts) => string | null) => (runs.every((r) => pick(r) === pick(runs[0])) ? pick(runs[0]) : undefined);
    const experiment = shared((r) => r.experiment);
    const status = shared((r) => r.status);
    const checkpoint = shared((r) => r.checkpoint);
    const common = [
      experiment !== undefined && status !== undefined ? `${experiment} ${status}` : null,
      checkpoint ? `checkpoint ${checkpoint}` : null,
    ].filter((x) => x !== null);
    const each = runs.map((r) => {
      const own = [
        experiment === undefined || status === undefined ? `${r.experiment} ${r.status}` : null,
        `seed ${r.seed}`,
        `config ${r.config}`,
        checkpoint === undefined && r.checkpoint ? `checkpoint ${r.checkpoint}` : null,
      ].filter((x) => x !== null);
      return `run ${r.id} (${own.join(', ')})`;
    });
    const count = runs.length === 1 ? '1 run' : `${runs.length} runs`;
    return `- ${key}; ${count}${common.length ? ` (${common.join(', ')})` : ''}: ${each.join('; ')}`;
  });
}

/** The first line of a rendered markdown file: its title (the body follows after one blank line). */
export function markdownTitle(title: string): string {
  return `# ${title}\n`;
}

/**
 * A rendered markdown file: `body` (title, setting, tables) first, then the provenance block: the
 * generating command and the runs it came from, grouped by commit and state.
 */
export function withProvenance(body: string, store: Store, runIds: readonly string[], command: string): string {
  const groups = provenanceGroups(runIds.map((id) => factsOf(store.getRun(id))));
  return (
    `${body.trimEnd()}\n\n## Provenance\n\nGenerated from the results store by \`${command}\`; do not edit by hand. ` +
    `Runs by git commit, code state and backend:\n\n${groups.join('\n')}\n`
  );
}

/** CSV header comment lines (`# ...`; read with pandas' `comment='#'`). */
export function csvHeader(store: Store, runIds: readonly string[]): string {
  return runIds.map((id) => `# ${provenanceLine(factsOf(store.getRun(id)))}\n`).join('');
}
