/**
 * The identity of the code a finetune child runs: sha256 over the source files that train and
 * evaluate it (the libraries' `src/**\/*.ts` except tests, the experiment's own and common files, the
 * committed data splits), in path order, each as `\0<path>\0<bytes>`. It is part of every child's
 * config, so a child is reused only while this code is unchanged (committed or not); READMEs,
 * tests and other experiments do not count.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '@rred/core';

const LIBRARIES = ['core', 'engine', 'lm', 'tasks', 'segmentation', 'estimators', 'training', 'evaluation', 'recipes'];
const SOURCE_DIRS = [...LIBRARIES.map((p) => `packages/${p}/src`), 'experiments/src/finetune', 'experiments/src/common'];
const DATA_DIR = 'packages/tasks/data';

function filesUnder(root: string, dir: string, keep: (file: string) => boolean): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true, recursive: true }).flatMap((e) => {
    if (!e.isFile()) return [];
    const rel = path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    return keep(rel) ? [rel] : [];
  });
}

let cached: string | null = null;

/** The hash above (computed once per process; hex, 64 characters). */
export function finetuneCodeHash(root = repoRoot()): string {
  if (cached !== null && root === repoRoot()) return cached;
  const source = (f: string) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts');
  const files = [
    ...SOURCE_DIRS.flatMap((d) => filesUnder(root, d, source)),
    ...filesUnder(root, DATA_DIR, (f) => f.endsWith('.jsonl')),
  ].sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(`\0${f}\0`).update(fs.readFileSync(path.join(root, f)));
  const out = hash.digest('hex');
  if (root === repoRoot()) cached = out;
  return out;
}
