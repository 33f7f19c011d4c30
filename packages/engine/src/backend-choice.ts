import { UserError } from '@rred/core';

/** Backends in preference order; the first that loads wins unless one is requested. */
export const BACKEND_ORDER = ['tfjs-node-gpu', 'tfjs-node', 'wasm+native', 'wasm', 'cpu'] as const;
export type BackendName = (typeof BACKEND_ORDER)[number];

export type AttemptResult = { ok: true } | { ok: false; reason: string };
export type Attempt = () => Promise<AttemptResult>;

/** Validates a backend name from RRED_BACKEND or an option. */
export function parseBackendName(value: string, source: string): BackendName {
  if ((BACKEND_ORDER as readonly string[]).includes(value)) return value as BackendName;
  throw new UserError(`${source}: got ${JSON.stringify(value)}, expected one of ${BACKEND_ORDER.join(', ')}`);
}

/** Validates a thread count from RRED_BLAS_THREADS or an option. */
export function parseThreadCount(value: string, source: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${source}: got ${JSON.stringify(value)}, expected an integer >= 1`);
  return n;
}

/**
 * Which backends to try: all of them in order, or the requested one. A requested wasm+native may
 * still fall back to plain wasm (a missing addon must never stop a run), a requested tfjs-node may not.
 */
export function candidatesFor(requested: BackendName | undefined): BackendName[] {
  if (!requested) return [...BACKEND_ORDER];
  return requested === 'wasm+native' ? ['wasm+native', 'wasm'] : [requested];
}

interface Choice {
  backend: BackendName;
  reasonsSkipped: Partial<Record<BackendName, string>>;
}

/** Tries the candidates in order; throws a UserError if none loads. */
export async function chooseBackend(
  candidates: BackendName[],
  attempts: Record<BackendName, Attempt>,
  requested?: BackendName,
): Promise<Choice> {
  const reasonsSkipped: Partial<Record<BackendName, string>> = {};
  for (const name of candidates) {
    const result = await attempts[name]();
    if (result.ok) return { backend: name, reasonsSkipped };
    reasonsSkipped[name] = result.reason;
  }
  const why = Object.entries(reasonsSkipped)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
  throw new UserError(
    requested ? `RRED_BACKEND=${requested} could not be used (${why})` : `no TensorFlow.js backend could be loaded (${why})`,
  );
}

/** The one line the engine logs, e.g. `engine: wasm+native (tfjs-node-gpu: not installed; tfjs-node: not installed)`. */
export function engineLine(choice: Choice, detail?: string): string {
  const skipped = Object.entries(choice.reasonsSkipped).map(([k, v]) => `${k}: ${v}`);
  let line = `engine: ${choice.backend}${skipped.length ? ` (${skipped.join('; ')})` : ''}${detail ? `, ${detail}` : ''}`;
  if (choice.backend !== 'wasm+native' && choice.reasonsSkipped['wasm+native']) {
    line +=
      ` — warning: native kernels unavailable, falling back to plain ${choice.backend}` +
      (choice.backend === 'wasm' ? ' (~9x slower; install libopenblas-dev and re-run npm ci, see the README quick start)' : '');
  }
  return line;
}
