import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findRepoRoot, gitState, type GitState } from '@rred/core';

/** What the caller knows about the tensor backend (the engine package owns that knowledge). */
export interface BackendInfo {
  backend: string;
  openblasThreads: number | null;
  /** OpenBLAS's build and the kernels it runs (e.g. "OpenBLAS 0.3.21 … Cooperlake …"), null without the native kernels. */
  openblasConfig?: string | null;
}

/** Everything needed to say how a run was produced, captured once at run start. */
export interface RunContext {
  git: GitState;
  argv: string[];
  cwd: string;
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  /** Direct dependencies of the repository's package.json → installed version (null if missing). */
  packages: Record<string, string | null>;
  /** sha256 of package-lock.json (null if absent). */
  lockfileSha256: string | null;
  backend: string;
  openblasThreads: number | null;
  /**
   * OpenBLAS's build and kernel family (its config string; null without the native kernels or when the caller
   * did not say). The kernels decide speed (AVX2 Haswell vs AVX-512 SkylakeX/Cooperlake: 227 vs 400+ GFLOP/s
   * of sgemm on one 2-core machine) and may move the last float digits. Absent in runs recorded before it was.
   */
  openblasConfig?: string | null;
  /**
   * RRED_BLAS_THREADS / OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / OPENBLAS_CORETYPE as set in the environment (the
   * engine's count is `openblasThreads`; OPENBLAS_CORETYPE overrides OpenBLAS's choice of kernels).
   */
  threadEnv: Record<string, string | null>;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The package.json files of the root and of its npm workspaces (`packages/*`, `experiments`). */
function manifests(root: string): Record<string, unknown>[] {
  const pkg = readJson(path.join(root, 'package.json'));
  if (!pkg) return [];
  const dirs: string[] = [];
  for (const pattern of Array.isArray(pkg.workspaces) ? (pkg.workspaces as string[]) : []) {
    if (!pattern.endsWith('/*')) dirs.push(path.join(root, pattern));
    else {
      const parent = path.join(root, pattern.slice(0, -2));
      if (fs.existsSync(parent)) for (const d of fs.readdirSync(parent).sort()) dirs.push(path.join(parent, d));
    }
  }
  return [pkg, ...dirs.map((d) => readJson(path.join(d, 'package.json'))).filter((m): m is Record<string, unknown> => m !== null)];
}

/**
 * Installed versions of the direct npm dependencies (dev and optional included) that the root and the
 * workspaces declare; the workspaces themselves are not listed.
 */
function capturePackages(root: string): Record<string, string | null> {
  const all = manifests(root);
  const workspaces = new Set(all.map((m) => m.name));
  const names = new Set<string>();
  for (const pkg of all)
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      const deps = pkg[field];
      if (deps && typeof deps === 'object') for (const name of Object.keys(deps)) if (!workspaces.has(name)) names.add(name);
    }
  const out: Record<string, string | null> = {};
  for (const name of [...names].sort()) {
    const installed = readJson(path.join(root, 'node_modules', name, 'package.json'));
    out[name] = typeof installed?.version === 'string' ? installed.version : null;
  }
  return out;
}

interface CaptureOptions {
  backend: BackendInfo;
  /** Defaults to process.argv. */
  argv?: string[];
  /** Where to look for the repository (default: cwd). */
  cwd?: string;
}

export function captureRunContext(opts: CaptureOptions): RunContext {
  const cwd = opts.cwd ?? process.cwd();
  const root = findRepoRoot(cwd);
  const lockfile = root ? path.join(root, 'package-lock.json') : null;
  return {
    git: gitState(root ?? cwd),
    argv: opts.argv ?? process.argv.slice(),
    cwd,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: os.cpus().length,
    packages: root ? capturePackages(root) : {},
    lockfileSha256: lockfile && fs.existsSync(lockfile) ? sha256(fs.readFileSync(lockfile)) : null,
    backend: opts.backend.backend,
    openblasThreads: opts.backend.openblasThreads,
    openblasConfig: opts.backend.openblasConfig ?? null,
    threadEnv: {
      RRED_BLAS_THREADS: process.env.RRED_BLAS_THREADS ?? null,
      OPENBLAS_NUM_THREADS: process.env.OPENBLAS_NUM_THREADS ?? null,
      OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? null,
      OPENBLAS_CORETYPE: process.env.OPENBLAS_CORETYPE ?? null,
    },
  };
}
