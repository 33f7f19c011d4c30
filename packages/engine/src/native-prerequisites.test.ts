import { aptInstall, buildFailurePlan, missingPrerequisites, planNative, type Probes } from '../native/prerequisites';

/** A fresh Debian container run as root: apt-get, but no OpenBLAS and no compiler. */
function probes(
  over: Partial<Omit<Probes, 'managers' | 'openblas' | 'commands'>> & {
    managers?: Partial<Probes['managers']>;
    openblas?: Partial<Probes['openblas']>;
    commands?: Partial<Probes['commands']>;
  } = {},
): Probes {
  return {
    platform: over.platform ?? 'linux',
    isRoot: over.isRoot ?? true,
    managers: { apt: true, dnf: false, brew: false, ...over.managers },
    openblas: { include: null, lib: null, ...over.openblas },
    commands: { cc: false, cxx: false, make: true, python3: true, ...over.commands },
  };
}

const ALL_PRESENT = {
  openblas: { include: '/usr/include/x86_64-linux-gnu', lib: '/usr/lib/x86_64-linux-gnu' },
  commands: { cc: true, cxx: true, make: true, python3: true },
};

describe('planNative: what the install step does about missing prerequisites', () => {
  it('builds when everything is present, whoever runs it and whatever RRED_ALLOW_SLOW says', () => {
    for (const isRoot of [true, false]) {
      for (const env of [{}, { RRED_ALLOW_SLOW: '1' }]) {
        expect(planNative(probes({ ...ALL_PRESENT, isRoot }), env)).toEqual({ action: 'build' });
      }
    }
  });

  it('root with apt-get: installs exactly the missing Debian packages and says so in one line', () => {
    const plan = planNative(probes(), {});
    expect(plan).toEqual({
      action: 'install',
      packages: ['libopenblas-dev', 'g++'],
      line: 'engine: installing libopenblas-dev g++ with apt-get for the native kernels (not found: OpenBLAS header cblas.h, C compiler cc)',
    });
    // Only OpenBLAS missing (the machine): only libopenblas-dev.
    expect(planNative(probes({ commands: ALL_PRESENT.commands }), {})).toMatchObject({ action: 'install', packages: ['libopenblas-dev'] });
    // A header without the library still needs the package.
    expect(planNative(probes({ commands: ALL_PRESENT.commands, openblas: { include: '/usr/include' } }), {})).toMatchObject({
      action: 'install',
      packages: ['libopenblas-dev'],
      line: expect.stringContaining('not found: libopenblas.so'),
    });
    // make, python3 and a missing C++ compiler (cc present) map to their packages, in a fixed order.
    expect(
      planNative(probes({ openblas: ALL_PRESENT.openblas, commands: { cc: true, cxx: false, make: false, python3: false } }), {}),
    ).toMatchObject({ action: 'install', packages: ['g++', 'make', 'python3'] });
  });

  it('root with apt-get installs even when RRED_ALLOW_SLOW=1 (the opt-in is only for when it cannot)', () => {
    expect(planNative(probes(), { RRED_ALLOW_SLOW: '1' }).action).toBe('install');
  });

  it('not root, apt-get present: stops with one line naming the exact sudo apt-get command', () => {
    const plan = planNative(probes({ isRoot: false }), {});
    expect(plan.action).toBe('stop');
    const line = (plan as { line: string }).line;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('run: sudo apt-get install -y --no-install-recommends libopenblas-dev g++ && npm ci');
    expect(line).toContain('RRED_ALLOW_SLOW=1 npm ci');
  });

  it('no package manager it knows (or not Linux/macOS): stops and names what to install', () => {
    for (const p of [
      probes({ managers: { apt: false } }),
      probes({ platform: 'win32' }),
      probes({ platform: 'freebsd', managers: { apt: false } }),
    ]) {
      const plan = planNative(p, {});
      expect(plan.action).toBe('stop');
      expect((plan as { line: string }).line).toMatch(
        /^engine: the native kernels need OpenBLAS header cblas\.h, C compiler cc; install OpenBLAS .*then npm ci \(or RRED_ALLOW_SLOW=1 npm ci/,
      );
    }
  });

  it('dnf (Fedora) and Homebrew (macOS): the command uses their package names', () => {
    const dnf = planNative(probes({ isRoot: false, managers: { apt: false, dnf: true } }), {});
    expect((dnf as { line: string }).line).toContain('run: sudo dnf install -y openblas-devel gcc-c++ && npm ci');
    const brew = planNative(
      probes({ platform: 'darwin', isRoot: false, managers: { apt: false, brew: true }, commands: { cc: true, cxx: true } }),
      {},
    );
    expect((brew as { line: string }).line).toContain(
      'run: brew install openblas && RRED_OPENBLAS_INCLUDE="$(brew --prefix openblas)/include"',
    );
    // macOS never installs through apt, even as root with an apt-get on PATH.
    expect(planNative(probes({ platform: 'darwin' }), {}).action).toBe('stop');
  });

  it('RRED_ALLOW_SLOW=1 where it cannot install: one warning line, continue on plain wasm', () => {
    const plan = planNative(probes({ isRoot: false }), { RRED_ALLOW_SLOW: '1' });
    expect(plan).toEqual({
      action: 'slow',
      line: 'engine: native kernels not built (not found: OpenBLAS header cblas.h, C compiler cc); RRED_ALLOW_SLOW=1, so continuing on plain wasm (~9x slower)',
    });
  });

  it('RRED_SKIP_NATIVE=1 skips before anything is probed for, with the old warning line', () => {
    expect(planNative(probes({ ...ALL_PRESENT }), { RRED_SKIP_NATIVE: '1' })).toEqual({
      action: 'skip',
      line: 'engine: native kernels not built (RRED_SKIP_NATIVE=1); falling back to plain wasm',
    });
  });

  it('missingPrerequisites lists each missing thing once', () => {
    expect(missingPrerequisites(probes({ commands: { cc: false, cxx: false, make: false, python3: false } }))).toEqual([
      'openblas',
      'compiler',
      'make',
      'python3',
    ]);
    expect(missingPrerequisites(probes(ALL_PRESENT))).toEqual([]);
  });
});

describe('buildFailurePlan: prerequisites present but the build broke', () => {
  it('stops unless RRED_ALLOW_SLOW=1', () => {
    expect(buildFailurePlan('node-gyp failed, see build.log', {})).toEqual({
      action: 'stop',
      line: 'engine: native kernels not built (node-gyp failed, see build.log); fix that and re-run npm ci, or RRED_ALLOW_SLOW=1 npm ci to continue on plain wasm (~9x slower)',
    });
    expect(buildFailurePlan('node-gyp failed, see build.log', { RRED_ALLOW_SLOW: '1' }).action).toBe('slow');
  });
});

describe('aptInstall', () => {
  it('runs apt-get install non-interactively; on failure updates the package lists once and retries', () => {
    const calls: string[] = [];
    let installs = 0;
    const run = (cmd: string, args: string[], opts: object) => {
      calls.push(`${cmd} ${args.join(' ')}`);
      expect((opts as { env: Record<string, string> }).env.DEBIAN_FRONTEND).toBe('noninteractive');
      if (args[0] === 'install') installs++;
      // A fresh container: the first install finds no package lists.
      return { status: args[0] === 'install' && installs === 1 ? 100 : 0, stdout: `${args[0]} out\n`, stderr: '' };
    };
    const r = aptInstall(['libopenblas-dev'], run);
    expect(r.ok).toBe(true);
    expect(calls).toEqual([
      'apt-get install -y --no-install-recommends libopenblas-dev',
      'apt-get update',
      'apt-get install -y --no-install-recommends libopenblas-dev',
    ]);
    expect(r.output).toBe('install out\nupdate out\ninstall out\n');
  });

  it('reports failure when the retry fails too', () => {
    expect(aptInstall(['libopenblas-dev'], () => ({ status: 100, stdout: '', stderr: 'E: no\n' })).ok).toBe(false);
  });
});
