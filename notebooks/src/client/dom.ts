/** Small DOM helpers. Text always goes in as text (textContent), never as HTML. */
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function link(href: string, text: string): HTMLAnchorElement {
  return el('a', { href }, text);
}

/** A table with a header row; each cell is text or a node. */
export function table(
  header: readonly string[],
  rows: readonly (readonly Child[])[],
  attrs: Record<string, string> = {},
): HTMLTableElement {
  return el(
    'table',
    attrs,
    el('thead', {}, el('tr', {}, ...header.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, c))))),
  );
}

/** Two-column key/value table (values in monospace). */
export function keyValueTable(entries: readonly [string, string][], attrs: Record<string, string> = {}): HTMLTableElement {
  return el('table', attrs, el('tbody', {}, ...entries.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', { class: 'value' }, v)))));
}

export function app(): HTMLElement {
  const main = document.getElementById('app');
  if (!main) throw new Error('page has no #app element');
  return main;
}

export function showError(message: string): void {
  app().append(el('p', { class: 'error', role: 'alert' }, message));
}

export function runLink(id: string): HTMLAnchorElement {
  return link(`run.html?id=${encodeURIComponent(id)}`, id);
}

/** Epoch ms as `YYYY-MM-DD HH:MM:SSZ` (UTC), '' for none. */
export function utcTime(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString().slice(0, 19).replace('T', ' ') + 'Z';
}

/** Wall time of a run in seconds, '' while it has not ended. */
export function elapsed(startMs: number, endMs: number | null): string {
  return endMs === null ? '' : `${((endMs - startMs) / 1000).toFixed(1)} s`;
}
