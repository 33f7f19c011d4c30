import type { RunDetail, Store } from '@rred/results-store';

/** The facts a rendered table must state about the runs it came from (all read from the store). */
function provenance(run: RunDetail): string {
  const git = run.context.git;
  const state = git.dirty === null ? 'unknown state' : git.dirty ? `dirty, diff sha256 ${git.diffSha256?.slice(0, 12) ?? '?'}` : 'clean';
  const checkpoint = run.tags.checkpointHash ? `, checkpoint ${run.tags.checkpointHash.slice(0, 12)}` : '';
  const code = run.tags['code.experiments']
    ? ` [experiments/: ${run.tags['code.experiments']}; packages/: ${run.tags['code.packages'] ?? 'unknown'}]`
    : '';
  return (
    `run ${run.id} (${run.experiment}, ${run.status}), git ${git.commit.slice(0, 12)} (${state})${code}, seed ${run.seed ?? '—'}, ` +
    `config ${run.configHash.slice(0, 12)}${checkpoint}, backend ${run.context.backend}`
  );
}

/** Markdown header: title, the generating command, one provenance line per run. */
export function markdownHeader(title: string, store: Store, runIds: readonly string[], command: string): string {
  const lines = runIds.map((id) => `- ${provenance(store.getRun(id))}`);
  return `# ${title}\n\nGenerated from the results store by \`${command}\`; do not edit by hand.\n\n${lines.join('\n')}\n`;
}

/** CSV header comment lines (`# ...`; read with pandas' `comment='#'`). */
export function csvHeader(store: Store, runIds: readonly string[]): string {
  return runIds.map((id) => `# ${provenance(store.getRun(id))}\n`).join('');
}
