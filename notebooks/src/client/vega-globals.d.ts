// The vendor scripts (vega, vega-lite, vega-embed 6, copied from node_modules) define this global.
interface VegaEmbedResult {
  finalize(): void;
}
declare function vegaEmbed(
  el: HTMLElement,
  spec: object,
  opts?: { renderer?: 'svg' | 'canvas'; actions?: boolean; config?: object },
): Promise<VegaEmbedResult>;
