// Builds the native kernels (node-gyp + OpenBLAS) at `npm install` (root postinstall).
// What it does when a prerequisite is missing is decided in prerequisites.js: as root with apt-get it
// installs the missing Debian packages (saying which); otherwise it stops the install with one line
// naming the command to run, unless RRED_ALLOW_SLOW=1 (then one warning line, exit 0, plain wasm).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { planNative, buildFailurePlan, probeSystem, aptInstall } = require('./prerequisites');

const os = require('os');

const here = __dirname;
const releaseDir = path.join(here, 'build', 'Release');
const addonFile = path.join(releaseDir, 'rred_native.node');
const logFile = path.join(here, 'build', 'build.log');
const aptLogFile = path.join(here, 'build', 'apt.log');

let staging = null;

/** Ends the install step for a plan that does not build: print its one line; 'stop' exits 1. */
function finish(plan) {
  if (staging) fs.rmSync(staging, { recursive: true, force: true });
  process.stderr.write(`${plan.line}\n`);
  process.exit(plan.action === 'stop' ? 1 : 0);
}

function fail(reason) {
  finish(buildFailurePlan(reason, process.env));
}

/** Write-then-rename, so a process starting meanwhile sees the old file or the new one, never none. */
function installFile(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const tmp = `${to}.tmp-${process.pid}`;
  fs.copyFileSync(from, tmp);
  fs.renameSync(tmp, to);
}

function nodeGypScript() {
  try {
    return require.resolve('node-gyp/bin/node-gyp.js', { paths: [here, process.cwd()] });
  } catch {
    return null;
  }
}

// node-gyp downloads Node headers unless told where they are; offline installs need the local copy.
function localNodeDir() {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? prefix : null;
}

// OpenBLAS (DYNAMIC_ARCH) picks kernels from the CPU model. On a CPU newer than the library it falls
// back to SSE3 "Prescott" kernels, 5-10x slower; then record the best core type the CPU flags allow,
// which the engine sets as OPENBLAS_CORETYPE before loading the addon.
const LEGACY_CORES =
  /^(Prescott|Core2|Penryn|Dunnington|Nehalem|Atom|Katmai|Coppermine|Northwood|Banias|Athlon|Opteron|Barcelona|Bobcat|Generic|Unknown)$/i;

function recordCoreType(releaseDir) {
  const hintFile = path.join(releaseDir, 'openblas-env.json');
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  const addon = path.join(releaseDir, 'rred_native.node');
  const probe = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(addon)}).blasConfig())`], {
    env,
    encoding: 'utf8',
  });
  // e.g. "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64"
  const detected =
    (probe.stdout || '')
      .trim()
      .split(/\s+/)
      .slice(2)
      .filter((w) => !/^(NO_|USE_|DYNAMIC_ARCH|MAX_THREADS|SMP)/.test(w))
      .pop() || '';
  if (!LEGACY_CORES.test(detected)) return;
  let flags = '';
  try {
    flags = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '';
  } catch {
    return;
  }
  const has = (f) => new RegExp(`\\b${f}\\b`).test(flags);
  const core = ['avx512f', 'avx512bw', 'avx512vl', 'avx512dq'].every(has)
    ? 'SkylakeX'
    : has('avx2') && has('fma')
      ? 'Haswell'
      : has('avx')
        ? 'Sandybridge'
        : null;
  if (core) fs.writeFileSync(hintFile, JSON.stringify({ OPENBLAS_CORETYPE: core, detected }) + '\n');
}

function main() {
  let plan = planNative(probeSystem(), process.env);
  if (plan.action === 'install') {
    process.stderr.write(`${plan.line}\n`);
    const started = Date.now();
    const apt = aptInstall(plan.packages);
    fs.mkdirSync(path.dirname(aptLogFile), { recursive: true });
    fs.writeFileSync(aptLogFile, apt.output);
    const log = path.relative(process.cwd(), aptLogFile);
    if (!apt.ok) fail(`apt-get install ${plan.packages.join(' ')} failed, see ${log}`);
    process.stderr.write(
      `engine: installed ${plan.packages.join(' ')} in ${Math.round((Date.now() - started) / 1000)} s (apt-get output in ${log})\n`,
    );
    plan = planNative(probeSystem(), process.env);
    if (plan.action === 'install') fail(`apt-get installed ${plan.packages.join(' ')} but the build still cannot find them`);
  }
  if (plan.action !== 'build') finish(plan);
  const gyp = nodeGypScript();
  if (!gyp) fail('node-gyp not installed');
  // Build in a private staging copy: `node-gyp rebuild` empties its build directory first, and other
  // processes starting meanwhile would find no addon and silently run on plain wasm.
  staging = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-native-'));
  fs.cpSync(path.join(here, 'src'), path.join(staging, 'src'), { recursive: true });
  for (const f of ['binding.gyp', 'openblas-paths.js']) fs.copyFileSync(path.join(here, f), path.join(staging, f));
  const args = [gyp, 'rebuild', '--release'];
  const nodedir = localNodeDir();
  if (nodedir) args.push(`--nodedir=${nodedir}`);
  const r = spawnSync(process.execPath, args, { cwd: staging, encoding: 'utf8', env: process.env });
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, `${r.stdout ?? ''}\n${r.stderr ?? ''}`);
  if (r.status !== 0) {
    fs.rmSync(addonFile, { force: true }); // a stale addon from older sources must not be used
    fail(`node-gyp failed, see ${path.relative(process.cwd(), logFile)}`);
  }
  const stagedRelease = path.join(staging, 'build', 'Release');
  recordCoreType(stagedRelease);
  const hint = path.join(stagedRelease, 'openblas-env.json');
  if (fs.existsSync(hint)) installFile(hint, path.join(releaseDir, 'openblas-env.json'));
  else fs.rmSync(path.join(releaseDir, 'openblas-env.json'), { force: true });
  installFile(path.join(stagedRelease, 'rred_native.node'), addonFile);
  fs.rmSync(staging, { recursive: true, force: true });
  staging = null;
  process.stderr.write(`engine: native kernels built (${path.relative(process.cwd(), addonFile)})\n`);
}

main();
