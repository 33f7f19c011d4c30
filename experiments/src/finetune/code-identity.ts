/**
 * The identity of the code a finetune child runs: sha256 over the source files it imports, in path
 * order, each as `\0<path>\0<bytes>`. The walk starts at the child's entry files (child.ts, which trains
 * and evaluates, and child-data.ts, which builds its problems) and follows every value import,
 * transitively:
 * - a relative import brings in that file (`.ts`, or its `index.ts`) and, in turn, what it imports;
 * - a package import `@rred/<pkg>` brings in, for each imported name, the file its index re-exports it
 *   from (`export { name } from './file'`; `export *` targets when the index does not name it; the
 *   index itself when it defines the name), not the whole package; `import * as` brings in every one;
 * - type-only imports and exports (`import type`, `{ type X }`) bring in nothing: they do not run;
 * - npm packages and node built-ins are not hashed (package-lock.json pins them).
 * It is part of every child's config, so a child is reused only while this code is unchanged (committed
 * or not); READMEs, tests, renderers and every file the child does not import do not count. The data a
 * child reads is hashed apart (`ChildConfig.dataHash`).
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '@rred/core';

/** Where the walk starts, relative to the repository root. */
const CHILD_ENTRIES = ['experiments/src/finetune/child.ts', 'experiments/src/finetune/child-data.ts'];

interface ImportRef {
  spec: string;
  /** Imported names (as the target module exports them), or '*' for everything. */
  names: string[] | '*';
}

const STATEMENT = /(?:^|[;\n}])\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
const SIDE_EFFECT = /(?:^|[;\n])\s*import\s+['"]([^'"]+)['"]/g;

/** Value names of a `{ a, type B, c as d }` clause (the exported side: a, c); '*' for namespace or default imports. */
function namesOf(clause: string): string[] | '*' {
  const braces = clause.match(/\{([^}]*)\}/);
  const outside = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/,/g, ' ')
    .trim();
  if (outside.length > 0) return '*'; // `* as x`, `x` (default), `x, { … }`
  if (!braces) return '*';
  return braces[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !s.startsWith('type '))
    .map((s) => s.split(/\s+as\s+/)[0].trim());
}

/** The value imports and re-exports of one source text (comments stripped first). */
export function importsOf(source: string): ImportRef[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: ImportRef[] = [];
  for (const m of text.matchAll(STATEMENT)) {
    if (m[2]) continue; // `import type` / `export type`
    const names = namesOf(m[3]);
    if (names !== '*' && names.length === 0) continue; // only types inside the braces
    out.push({ spec: m[4], names });
  }
  for (const m of text.matchAll(SIDE_EFFECT)) out.push({ spec: m[1], names: '*' });
  return out;
}

/** `./x` from `dir`: the .ts file, the file itself (.json, .ts given), or the directory's index.ts; null if none. */
function resolveFile(root: string, from: string): string | null {
  const candidates = [from, `${from}.ts`, path.join(from, 'index.ts')];
  for (const c of candidates) {
    const abs = path.join(root, c);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) return c.split(path.sep).join('/');
  }
  return null;
}

/** `@rred/<pkg>[/<sub>]` → the file it names (package.json's main, or <sub>), relative to the root; null for anything else. */
function resolvePackage(root: string, spec: string): string | null {
  const m = spec.match(/^@rred\/([^/]+)(?:\/(.+))?$/);
  if (!m) return null;
  const dir = path.join('packages', m[1]);
  if (m[2]) return resolveFile(root, path.join(dir, m[2]));
  const pkgFile = path.join(root, dir, 'package.json');
  const main = fs.existsSync(pkgFile)
    ? ((JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { main?: string }).main ?? 'index.ts')
    : 'index.ts';
  return resolveFile(root, path.join(dir, main));
}

/** The files (relative to the root) one import of `file` brings in. */
function targetsOf(root: string, file: string, ref: ImportRef): string[] {
  const target = ref.spec.startsWith('.') ? resolveFile(root, path.join(path.dirname(file), ref.spec)) : resolvePackage(root, ref.spec);
  return target ? [target] : [];
}

/**
 * The files a set of names of `file` needs: the files that define them, through its re-exports. A file
 * that defines any of them itself (or is asked for '*') is needed whole, with all its imports.
 */
interface Walk {
  /** Names asked of each file visited ('*': all). */
  seen: Map<string, Set<string> | '*'>;
  /** Files whose bytes count: all visited but the barrels that only passed names on. */
  hashed: Set<string>;
}

function collect(root: string, file: string, names: string[] | '*', walk: Walk): void {
  const { seen } = walk;
  const had = seen.get(file);
  if (had === '*') return;
  if (had && names !== '*' && names.every((n) => had.has(n))) return;
  seen.set(file, names === '*' ? '*' : new Set([...(had ?? []), ...names]));
  if (!file.endsWith('.ts')) {
    walk.hashed.add(file); // a JSON or other data file: its bytes only
    return;
  }
  const source = fs.readFileSync(path.join(root, file), 'utf8');
  const refs = importsOf(source);
  // a re-export `export { a } from './x'` answers for `a`; everything else the file imports runs when it is loaded
  const reexports = [...source.matchAll(/export\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?)\s*from\s*['"]([^'"]+)['"]/g)].map((m) => ({
    typeOnly: Boolean(m[1]),
    names: m[2].startsWith('*') && !/\*\s+as/.test(m[2]) ? ('*' as const) : namesOf(m[2]),
    spec: m[3],
  }));
  const isBarrel = reexports.length > 0 && refs.every((r) => reexports.some((x) => x.spec === r.spec));
  if (!isBarrel || names === '*') {
    walk.hashed.add(file);
    for (const ref of refs) for (const t of targetsOf(root, file, ref)) collect(root, t, ref.names, walk);
    return;
  }
  // a barrel (an index of re-exports only): follow only the re-exports of the names asked for
  const wanted = new Set(names);
  const found = new Set<string>();
  for (const x of reexports) {
    if (x.typeOnly || x.names === '*') continue;
    const hit = x.names.filter((n) => wanted.has(n) || wanted.has(aliasTarget(source, n)));
    if (hit.length === 0) continue;
    hit.forEach((n) => found.add(n));
    for (const t of targetsOf(root, file, { spec: x.spec, names: hit })) collect(root, t, hit, walk);
  }
  const missing = [...wanted].filter((n) => !found.has(n));
  if (missing.length === 0) return;
  const stars = reexports.filter((r) => r.names === '*' && !r.typeOnly);
  if (stars.length === 0) walk.hashed.add(file); // defined here after all
  for (const x of stars) for (const t of targetsOf(root, file, { spec: x.spec, names: missing })) collect(root, t, missing, walk);
}

/** `export { a as b }` is asked for as `b` but defined as `a`: the exported name of source name `n`. */
function aliasTarget(source: string, n: string): string {
  const m = source.match(new RegExp(`\\b${n}\\s+as\\s+([\\w$]+)`));
  return m ? m[1] : n;
}

/** Every file the entries import, transitively (relative to the root, sorted). */
export function childCodeFiles(root = repoRoot(), entries: readonly string[] = CHILD_ENTRIES): string[] {
  const walk: Walk = { seen: new Map(), hashed: new Set() };
  for (const e of entries) if (fs.existsSync(path.join(root, e))) collect(root, e, '*', walk);
  return [...walk.hashed].sort();
}

const cached = new Map<string, string>();

/** The hash above (computed once per process and root; hex, 64 characters). */
export function finetuneCodeHash(root = repoRoot(), entries: readonly string[] = CHILD_ENTRIES): string {
  const key = `${root}\0${entries.join('\0')}`;
  const hit = cached.get(key);
  if (hit !== undefined && root === repoRoot()) return hit;
  const hash = createHash('sha256');
  for (const f of childCodeFiles(root, entries)) hash.update(`\0${f}\0`).update(fs.readFileSync(path.join(root, f)));
  const out = hash.digest('hex');
  if (root === repoRoot()) cached.set(key, out);
  return out;
}
