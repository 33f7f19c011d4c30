/**
 * How the page draws a committed spec (the spec itself is as committed): axis labels that would overlap
 * are thinned (log axes), legend labels are not cut.
 */
const PAGE_CONFIG = { axis: { labelOverlap: 'greedy', labelFlush: true }, legend: { labelLimit: 0, titleLimit: 0 } };

/** Embeds every committed spec the build listed (div.chart[data-spec]), one after the other. */
export async function figuresPage(): Promise<void> {
  for (const div of document.querySelectorAll<HTMLElement>('div.chart[data-spec]')) {
    const url = div.dataset.spec as string;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    await vegaEmbed(div, (await res.json()) as object, { renderer: 'svg', actions: false, config: PAGE_CONFIG });
  }
}
