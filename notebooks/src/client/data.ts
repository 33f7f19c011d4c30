import { parseWithFloats } from '../json-floats';
import type { RunDocument, RunsIndex } from '../site-data';

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return parseWithFloats<T>(await res.text());
}

export function loadIndex(): Promise<RunsIndex> {
  return getJson<RunsIndex>('data/runs.json');
}

export function loadRun(id: string): Promise<RunDocument> {
  return getJson<RunDocument>(`data/runs/${encodeURIComponent(id)}.json`);
}

/** Full run id from a full id or a unique prefix, as `rred runs show` accepts it. */
export function resolveId(index: RunsIndex, idOrPrefix: string): string {
  const p = idOrPrefix.trim().toLowerCase();
  if (!/^[0-9a-f]{1,64}$/.test(p)) throw new Error(`'${idOrPrefix}' is not a run id (run ids are hexadecimal, e.g. 3f9a1c2b7d01)`);
  const ids = index.runs.map((r) => r.id).filter((id) => id.startsWith(p));
  if (ids.length === 0) throw new Error(`no run with id '${idOrPrefix}' in ${index.store}`);
  if (ids.length > 1 && !ids.includes(p))
    throw new Error(`run id prefix '${idOrPrefix}' is ambiguous (${ids.slice(0, 3).join(', ')}, ...); give more characters`);
  return ids.includes(p) ? p : ids[0];
}
