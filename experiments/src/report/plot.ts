import * as fs from 'fs';
import * as path from 'path';
import type * as Vega from 'vega';
import type * as VegaLite from 'vega-lite';
import type * as ResvgJs from '@resvg/resvg-js';
import { writeOutputFile } from '@rred/core';

/**
 * vega, vega-lite and resvg, loaded at the first plot: every experiment imports this module, and loading
 * them cost each command's start (also --help and every one-line error) ~0.3 s of CPU.
 */
function renderers(): { vega: typeof Vega; vl: typeof VegaLite; Resvg: typeof ResvgJs.Resvg } {
  return { vega: require('vega'), vl: require('vega-lite'), Resvg: require('@resvg/resvg-js').Resvg };
}

/** A vega-lite spec; typed loosely because specs are data written by each experiment. */
type VegaLiteSpec = Record<string, unknown>;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/**
 * Writes `<name>.vl.json` (the committed spec, openable in the Vega editor), `<name>.svg` and
 * `<name>.png` (rendered offline with vega's headless view and resvg). Data is embedded in the
 * spec so the plot is self-contained; rendering is deterministic for the same spec and fonts.
 */
export async function writePlot(dir: string, name: string, spec: VegaLiteSpec): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const full = { $schema: SCHEMA, background: 'white', ...spec };
  const { vega, vl, Resvg } = renderers();
  const compiled = vl.compile(full as unknown as VegaLite.TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = stableIds(await view.toSVG());
  view.finalize();
  const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
  const files = [`${name}.vl.json`, `${name}.svg`, `${name}.png`].map((f) => path.join(dir, f));
  writeOutputFile(files[0], `${JSON.stringify(full, null, 2)}\n`);
  writeOutputFile(files[1], svg);
  writeOutputFile(files[2], png);
  return files;
}

/**
 * vega numbers gradient and clip ids with process-wide counters, so the same spec rendered second
 * in a process gets different ids; renumbering them per file in order of appearance makes the SVG a
 * function of the spec alone (byte-identical re-renders).
 */
export function stableIds(svg: string): string {
  const seen = new Map<string, string>();
  const counters: Record<string, number> = {};
  return svg.replace(/\b(gradient_|clip)(\d+)\b/g, (whole: string, prefix: string) => {
    let id = seen.get(whole);
    if (id === undefined) {
      counters[prefix] = (counters[prefix] ?? 0) + 1;
      id = `${prefix}${prefix === 'clip' ? counters[prefix] : counters[prefix] - 1}`;
      seen.set(whole, id);
    }
    return id;
  });
}
