import { builtinModules } from 'module';
import * as path from 'path';
import { build, type Plugin } from 'esbuild';

/**
 * Workspace packages (@rred/*) are imported by the pages for their pure functions only (the filter
 * language, compareRuns, formatFloat); their index files also re-export store code that needs Node.
 * Declaring those modules free of import side effects lets esbuild drop everything the pages do not
 * call, so no `require('fs')` or `better-sqlite3` reaches the browser (the build checks that).
 */
function pureWorkspacePackages(repoRoot: string): Plugin {
  const packagesDir = path.join(repoRoot, 'packages') + path.sep;
  const nodeOnly = new Set([...builtinModules, 'better-sqlite3']);
  return {
    name: 'pure-workspace-packages',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'pure-workspace-packages') return undefined;
        if (nodeOnly.has(args.path.replace(/^node:/, ''))) return { path: args.path, external: true, sideEffects: false };
        if (args.kind === 'entry-point') return undefined;
        const r = await b.resolve(args.path, {
          resolveDir: args.resolveDir,
          kind: args.kind,
          importer: args.importer,
          pluginData: 'pure-workspace-packages',
        });
        if (r.errors.length > 0) return { errors: r.errors };
        return r.path.startsWith(packagesDir) ? { ...r, sideEffects: false } : r;
      });
    },
  };
}

/** Bundles the pages' script (src/client/app.ts) for the browser: one IIFE, no Node modules left. */
export async function bundleClient(repoRoot: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(__dirname, 'client', 'app.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    plugins: [pureWorkspacePackages(repoRoot)],
  });
  const text = result.outputFiles[0].text;
  const leaked = /__require\("([^"]+)"\)/.exec(text);
  if (leaked)
    throw new Error(
      `notebooks: the page bundle still needs the Node module '${leaked[1]}'; a page imports store code that cannot run in a browser`,
    );
  return text;
}
