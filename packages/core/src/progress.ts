/**
 * A one-line progress bar with rate and ETA, written to stderr. On a terminal it redraws in place;
 * elsewhere (CI logs) it prints at most one line every `logEveryMs` so logs stay readable.
 */
export class ProgressBar {
  private done = 0;
  private readonly started = Date.now();
  private lastDraw = 0;
  private readonly tty = Boolean(process.stderr.isTTY);

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly logEveryMs = 10000,
  ) {}

  tick(n = 1, info = ''): void {
    this.done += n;
    const now = Date.now();
    const finished = this.done >= this.total;
    if (!finished && now - this.lastDraw < (this.tty ? 100 : this.logEveryMs)) return;
    this.lastDraw = now;
    const line = this.render(now, info);
    if (this.tty) process.stderr.write(`\r${line}\x1b[K${finished ? '\n' : ''}`);
    else process.stderr.write(`${line}\n`);
  }

  private render(now: number, info: string): string {
    const frac = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const width = 24;
    const filled = Math.round(frac * width);
    const elapsed = (now - this.started) / 1000;
    const eta = this.done > 0 ? (elapsed / this.done) * (this.total - this.done) : NaN;
    return (
      `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} ` +
      `${formatSeconds(elapsed)} elapsed, ETA ${formatSeconds(eta)}${info ? ` | ${info}` : ''}`
    );
  }
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(0)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
