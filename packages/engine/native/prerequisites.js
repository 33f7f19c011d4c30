// What the native kernels need from the system, and what the install step does about it. The
// decision (`planNative`) is a pure function of the probes, so it is unit-tested with injected ones;
// `probeSystem` takes the real probes. Used by build.js (root postinstall).
//
// Rule: a fresh Debian/Ubuntu machine must end up on wasm+native from `npm ci` alone.
// - everything present           → build;
// - missing, root + apt-get      → install the missing Debian packages, saying which, then build;
// - missing, cannot install      → stop the install with ONE line naming the exact command to run,
//                                  unless RRED_ALLOW_SLOW=1 (continue on plain wasm, one warning line);
// - RRED_SKIP_NATIVE=1           → skip the build (one warning line), as before.
'use strict';
const { spawnSync } = require('child_process');
const { findOpenblas } = require('./openblas-paths');

/** Plain wasm against wasm+native for the main job (README quick start: 17 min 49 s vs ~2 min). */
const SLOWDOWN = '~9x slower';

/** Package names per package manager for each missing prerequisite. */
const PACKAGES = {
  apt: { openblas: 'libopenblas-dev', compiler: 'g++', make: 'make', python3: 'python3' },
  dnf: { openblas: 'openblas-devel', compiler: 'gcc-c++', make: 'make', python3: 'python3' },
  brew: { openblas: 'openblas', compiler: null, make: null, python3: 'python3' },
};

/**
 * @typedef {{ platform: string, isRoot: boolean, managers: { apt: boolean, dnf: boolean, brew: boolean },
 *   openblas: { include: string|null, lib: string|null },
 *   commands: { cc: boolean, cxx: boolean, make: boolean, python3: boolean } }} Probes
 */

/** The prerequisites that are missing, in install order: 'openblas', 'compiler', 'make', 'python3'. */
function missingPrerequisites(probes) {
  const missing = [];
  if (!probes.openblas.include || !probes.openblas.lib) missing.push('openblas');
  if (!probes.commands.cc || !probes.commands.cxx) missing.push('compiler');
  if (!probes.commands.make) missing.push('make');
  if (!probes.commands.python3) missing.push('python3');
  return missing;
}

function describeMissing(missing, probes) {
  return missing
    .map((m) => {
      if (m === 'openblas') return !probes.openblas.include ? 'OpenBLAS header cblas.h' : 'libopenblas.so';
      if (m === 'compiler') return !probes.commands.cc ? 'C compiler cc' : 'C++ compiler c++';
      return m;
    })
    .join(', ');
}

/** The one command a user without the rights to install runs, or null when none can be named. */
function manualCommand(missing, probes) {
  const sudo = probes.isRoot ? '' : 'sudo ';
  if (probes.platform === 'linux' && probes.managers.apt) {
    return `${sudo}apt-get install -y --no-install-recommends ${missing.map((m) => PACKAGES.apt[m]).join(' ')} && npm ci`;
  }
  if (probes.platform === 'linux' && probes.managers.dnf) {
    return `${sudo}dnf install -y ${missing.map((m) => PACKAGES.dnf[m]).join(' ')} && npm ci`;
  }
  if (probes.platform === 'darwin' && probes.managers.brew) {
    const pkgs = missing.map((m) => PACKAGES.brew[m]).filter(Boolean);
    const xcode = missing.includes('compiler') ? 'xcode-select --install && ' : '';
    const brew = pkgs.length ? `brew install ${pkgs.join(' ')} && ` : '';
    return `${xcode}${brew}RRED_OPENBLAS_INCLUDE="$(brew --prefix openblas)/include" RRED_OPENBLAS_LIB="$(brew --prefix openblas)/lib" npm ci`;
  }
  return null;
}

/**
 * What the install step does, from the probes and the environment. Returns one of
 *   { action: 'build' }
 *   { action: 'install', packages: string[], line }   (then re-probe and build)
 *   { action: 'skip' | 'slow', line }                 (exit 0 on plain wasm)
 *   { action: 'stop', line }                          (exit 1)
 * where `line` is the one line to print.
 * @param {Probes} probes
 * @param {Record<string, string|undefined>} env
 */
function planNative(probes, env) {
  if (env.RRED_SKIP_NATIVE === '1') {
    return { action: 'skip', line: 'engine: native kernels not built (RRED_SKIP_NATIVE=1); falling back to plain wasm' };
  }
  const missing = missingPrerequisites(probes);
  if (missing.length === 0) return { action: 'build' };
  const what = describeMissing(missing, probes);
  if (probes.platform === 'linux' && probes.isRoot && probes.managers.apt) {
    const packages = missing.map((m) => PACKAGES.apt[m]);
    return {
      action: 'install',
      packages,
      line: `engine: installing ${packages.join(' ')} with apt-get for the native kernels (not found: ${what})`,
    };
  }
  if (env.RRED_ALLOW_SLOW === '1') {
    return {
      action: 'slow',
      line: `engine: native kernels not built (not found: ${what}); RRED_ALLOW_SLOW=1, so continuing on plain wasm (${SLOWDOWN})`,
    };
  }
  const command = manualCommand(missing, probes);
  const how = command
    ? `run: ${command}`
    : 'install OpenBLAS (cblas.h + libopenblas.so; RRED_OPENBLAS_INCLUDE / RRED_OPENBLAS_LIB for a non-standard place), a C/C++ compiler, make and python3, then npm ci';
  return {
    action: 'stop',
    line: `engine: the native kernels need ${what}; ${how} (or RRED_ALLOW_SLOW=1 npm ci to continue on plain wasm, ${SLOWDOWN})`,
  };
}

/** One line for a build that had its prerequisites but failed; exit 1 unless RRED_ALLOW_SLOW=1. */
function buildFailurePlan(reason, env) {
  if (env.RRED_ALLOW_SLOW === '1') {
    return {
      action: 'slow',
      line: `engine: native kernels not built (${reason}); RRED_ALLOW_SLOW=1, so continuing on plain wasm (${SLOWDOWN})`,
    };
  }
  return {
    action: 'stop',
    line: `engine: native kernels not built (${reason}); fix that and re-run npm ci, or RRED_ALLOW_SLOW=1 npm ci to continue on plain wasm (${SLOWDOWN})`,
  };
}

function hasCommand(cmd, args = ['--version']) {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** @returns {Probes} */
function probeSystem() {
  return {
    platform: process.platform,
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    managers: { apt: hasCommand('apt-get'), dnf: hasCommand('dnf'), brew: hasCommand('brew') },
    openblas: findOpenblas(),
    commands: { cc: hasCommand('cc'), cxx: hasCommand('c++'), make: hasCommand('make'), python3: hasCommand('python3') },
  };
}

/**
 * Installs Debian packages non-interactively; when the package lists are empty or stale (a fresh
 * container), `apt-get update` once and retry. Returns { ok, output } (apt's output, for the log).
 */
function aptInstall(packages, run = spawnSync) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env, encoding: 'utf8' });
  let output = '';
  let r = install();
  output += `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) {
    const u = run('apt-get', ['update'], { env, encoding: 'utf8' });
    output += `${u.stdout ?? ''}${u.stderr ?? ''}`;
    r = install();
    output += `${r.stdout ?? ''}${r.stderr ?? ''}`;
  }
  return { ok: r.status === 0, output };
}

module.exports = { planNative, buildFailurePlan, missingPrerequisites, probeSystem, aptInstall };
