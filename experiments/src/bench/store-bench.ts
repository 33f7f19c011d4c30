import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { mean, median, parseConfig, ProgressBar } from '@rred/core';
import { captureRunContext, openStore, type RunContext } from '@rred/results-store';
import { sampleBundle, startTestPostgres } from '@rred/results-store/testing';
import { z } from 'zod';

export const StoreBenchConfigSchema = z
  .object({
    points: z.number().int().min(1).default(200).describe('Sweep points claimed and recorded on each back end.'),
    segments: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe('Segments of the one trace bundle each point records (one estimate per segment).'),
    postgresUrl: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        "PostgreSQL database to measure on (it gets the store's tables); null: a throwaway local cluster (Debian's postgresql), or the PostgreSQL line is skipped without one.",
      ),
  })
  .strict();

/** Milliseconds of each phase of one point, over all points. */
interface Timing {
  points: number;
  claimMsMedian: number;
  recordMsMedian: number;
  totalMsMedian: number;
  totalMsMean: number;
}

/**
 * What a sweep pays per point for coordination on one store: `claimRun` (one transaction: look for a holder
 * of the identity, start the run with its config, params and tags) and recording the point (one trace
 * bundle, a metric, finish). The compute a point does is not in it. One process, so no waiting on others.
 */
function measure(location: string, config: z.infer<typeof StoreBenchConfigSchema>, context: RunContext, label: string): Timing {
  const store = openStore(location);
  const bar = new ProgressBar(`bench store ${label}`, config.points, 5000);
  const claim: number[] = [];
  const record: number[] = [];
  try {
    for (let i = 0; i < config.points; i++) {
      const t0 = performance.now();
      const got = store.claimRun(
        {
          experiment: 'bench-store',
          config: { seed: 0, point: i },
          backend: { backend: 'cpu', openblasThreads: null },
          context,
        },
        { key: 'runIdentity', value: `point-${i}-${label}` },
      );
      const t1 = performance.now();
      if (!('run' in got)) throw new Error(`bench store: point ${i} was already claimed in ${store.file}; measure on an empty database`);
      got.run.writeTraceBundle(sampleBundle(`t${i}`, config.segments));
      got.run.logMetrics({ value: i });
      got.run.finish();
      const t2 = performance.now();
      claim.push(t1 - t0);
      record.push(t2 - t1);
      bar.tick(1);
    }
  } finally {
    store.close();
  }
  const total = claim.map((c, i) => c + record[i]);
  return {
    points: config.points,
    claimMsMedian: median(claim),
    recordMsMedian: median(record),
    totalMsMedian: median(total),
    totalMsMean: mean(total),
  };
}

const line = (name: string, t: Timing) =>
  `bench store: ${name}: claim + record a point ${t.totalMsMedian.toFixed(2)} ms (median of ${t.points}; claim ${t.claimMsMedian.toFixed(2)} ms, record ${t.recordMsMedian.toFixed(2)} ms)\n`;

/** The coordination overhead of a sweep point on each back end: a SQLite file and PostgreSQL (one line each on stderr). */
export async function runStoreBench(rawConfig: unknown = {}): Promise<Record<string, unknown>> {
  const config = parseConfig(StoreBenchConfigSchema, rawConfig, 'store bench config');
  const context = captureRunContext({ backend: { backend: 'cpu', openblasThreads: null } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-bench-store-'));
  try {
    const sqlite = measure(path.join(dir, 'bench.sqlite'), config, context, 'sqlite');
    process.stderr.write(line('SQLite (file)', sqlite));
    let postgresql: Timing | null = null;
    let skipped: string | null = null;
    if (config.postgresUrl !== null) postgresql = measure(config.postgresUrl, config, context, 'postgresql');
    else {
      let server: ReturnType<typeof startTestPostgres> | null = null;
      try {
        server = startTestPostgres();
      } catch (err) {
        skipped = `no local PostgreSQL server to start (${(err as Error).message.split('\n')[0]})`;
      }
      if (server) {
        try {
          postgresql = measure(server.createDatabase('bench_store'), config, context, 'postgresql');
        } finally {
          server.stop();
        }
      }
    }
    process.stderr.write(
      postgresql
        ? line(
            config.postgresUrl === null ? 'PostgreSQL (throwaway cluster on 127.0.0.1, fsync off)' : 'PostgreSQL (given URL)',
            postgresql,
          )
        : `bench store: PostgreSQL: skipped: ${skipped}\n`,
    );
    return {
      sqlite,
      postgresql,
      postgresqlSkipped: skipped,
      server:
        config.postgresUrl === null
          ? 'throwaway local cluster on 127.0.0.1 (fsync off: a durable server pays its commit flush on top)'
          : 'given URL',
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
