#!/usr/bin/env node
/**
 * `node tools/run-target.js <project>:<target> [-- ARGS]`: runs an nx target's command (its `command` in
 * <project>/project.json, from the repository root, with ARGS appended, after the targets it dependsOn)
 * without nx, and exits with the command's own exit code. `npx nx run` runs the same command but exits 1
 * for any failure (nx 24 has no option to pass the code through) and adds lines of its own; scripts and CI
 * that read the code (2: bad input, 1: a failed run, 130: interrupted) use this instead.
 * Its own errors (an unknown project or target) are one line, exit code 2.
 */
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');

function fail(message) {
  process.stderr.write(`error: run-target: ${message}\n`);
  process.exit(2);
}

/** name → { dir, targets } of every nx project (project.json files up to two levels below the root). */
function projects() {
  const found = new Map();
  const dirs = ['.', ...fs.readdirSync(ROOT)];
  for (const top of ['packages']) for (const d of fs.readdirSync(path.join(ROOT, top))) dirs.push(path.join(top, d));
  for (const dir of dirs) {
    const file = path.join(ROOT, dir, 'project.json');
    if (!fs.existsSync(file)) continue;
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    found.set(json.name, { dir, targets: json.targets ?? {} });
  }
  return found;
}

/** The shell command of `project:target` and the same-project targets it depends on, in run order. */
function plan(all, project, target, seen = new Set()) {
  const p = all.get(project);
  if (!p) fail(`no project '${project}' (projects: ${[...all.keys()].sort().join(', ')})`);
  const t = p.targets[target];
  if (!t) fail(`no target '${target}' in ${project} (targets: ${Object.keys(p.targets).join(', ')})`);
  const o = t.options ?? {};
  if (t.executor !== 'nx:run-commands' || typeof o.command !== 'string' || (o.cwd && o.cwd !== '{workspaceRoot}'))
    fail(`${project}:${target} is not a single command run from the repository root; run it with npx nx run ${project}:${target}`);
  if (seen.has(target)) return [];
  seen.add(target);
  const before = (t.dependsOn ?? []).flatMap((d) => plan(all, project, typeof d === 'string' ? d : d.target, seen));
  return [...before, { name: `${project}:${target}`, command: o.command }];
}

/** Runs `command ARGS` in a shell (ARGS passed as they are, unquoted by nobody); resolves with its code or signal. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `${command} "$@"`, 'sh', ...args], { cwd: ROOT, stdio: 'inherit' });
    // Ctrl-C reaches the command directly (same process group): this one waits for it, as a shell does, and
    // then ends as it did; a SIGTERM or SIGHUP sent to this process alone is passed on
    const handlers = [
      ['SIGINT', () => {}],
      ['SIGTERM', () => child.kill('SIGTERM')],
      ['SIGHUP', () => child.kill('SIGHUP')],
    ];
    for (const [s, h] of handlers) process.on(s, h);
    child.on('exit', (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      resolve({ code, signal });
    });
  });
}

async function main() {
  const [spec, ...rest] = process.argv.slice(2);
  if (!spec || spec === '--help' || spec === '-h') {
    process.stdout.write(
      "usage: node tools/run-target.js <project>:<target> [-- ARGS]   (the target's command without nx, exiting with its code)\n",
    );
    process.exit(spec ? 0 : 2);
  }
  const m = /^([^:]+):([^:]+)$/.exec(spec);
  if (!m) fail(`got '${spec}', expected <project>:<target> (e.g. experiments:mc-variance)`);
  const args = rest[0] === '--' ? rest.slice(1) : rest;
  const steps = plan(projects(), m[1], m[2]);
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    const { code, signal } = await run(step.command, last ? args : []);
    if (signal) {
      process.kill(process.pid, signal);
      return;
    }
    if (code !== 0 || last) process.exit(code);
  }
}

main();
