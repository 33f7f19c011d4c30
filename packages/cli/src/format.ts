import { formatFloat } from '@rred/results-store';

export function isoTime(ms: number | null): string {
  if (ms === null) return '';
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

export function duration(startMs: number, endMs: number | null): string {
  if (endMs === null) return '';
  const s = (endMs - startMs) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Metric values as text; NaN, ±Infinity and -0 are spelled out, never hidden. */
export function metricText(x: number | null | undefined): string {
  return x === undefined ? '' : formatFloat(x);
}
