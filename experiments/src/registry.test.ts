/**
 * The registry, the nx targets (project.json) and the defaults files (experiments/configs/*.json) must
 * agree: every experiment has its target running its main file, its defaults file parses with its
 * schema, its main file imports only its own directory and common code (so it loads only its own
 * renderer), and nothing is registered in one place and missing in another.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseConfig, readJsonFile } from '@rred/core';
import { EXPERIMENTS, sweepableExperiments } from './registry';
import { expandGrid, gridSpecSchema } from './sweep/grid';

const ROOT = path.resolve(__dirname, '..', '..');

interface Target {
  options?: { command?: string };
}
const targetsOf = (project: string): Record<string, Target> => {
  const file =
    project === 'experiments' ? path.join(ROOT, 'experiments', 'project.json') : path.join(ROOT, 'packages', project, 'project.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { targets: Record<string, Target> }).targets;
};

/** Main files of the tools that run over experiments rather than being one (they take the experiment as data). */
const TOOLS = ['experiments/src/sweep/main.ts', 'experiments/src/sweep/report.ts', 'experiments/src/render/main.ts'];

describe('experiment registry', () => {
  it('names are unique', () => {
    const names = EXPERIMENTS.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(EXPERIMENTS.map((e) => [e.name, e] as const))('%s: its nx target runs its main file', (_name, def) => {
    const target = targetsOf(def.command.project)[def.command.target];
    expect(target).toBeDefined();
    expect(target.options?.command).toBe(`node --import tsx ${def.command.main}`);
    expect(fs.existsSync(path.join(ROOT, def.command.main))).toBe(true);
  });

  it.each(EXPERIMENTS.map((e) => [e.name, e] as const))('%s: the defaults file parses with the schema', (name, def) => {
    const file = path.join(ROOT, 'experiments', 'configs', `${name}.json`);
    expect(fs.existsSync(file)).toBe(true);
    expect(() => parseConfig(def.schema, JSON.parse(fs.readFileSync(file, 'utf8')), file)).not.toThrow();
  });

  it.each(EXPERIMENTS.map((e) => [e.name, e] as const))('%s: main.ts imports only its own directory and common/', (_name, def) => {
    const source = fs.readFileSync(path.join(ROOT, def.command.main), 'utf8');
    const relative = [...source.matchAll(/from '(\.[^']*)'/g)].map((m) => m[1]);
    expect(relative.length).toBeGreaterThan(0);
    for (const spec of relative) expect([spec, spec.startsWith('./') || spec.startsWith('../common/')]).toEqual([spec, true]);
  });

  it('every defaults file belongs to a registered experiment', () => {
    const files = fs.readdirSync(path.join(ROOT, 'experiments', 'configs')).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => path.basename(f, '.json')).sort()).toEqual(EXPERIMENTS.map((e) => e.name).sort());
  });

  it('every target that runs an experiments/ main file is a registered experiment or a tool', () => {
    const mains = new Set(EXPERIMENTS.map((e) => e.command.main));
    const projects = [
      'experiments',
      ...fs.readdirSync(path.join(ROOT, 'packages')).filter((p) => fs.existsSync(path.join(ROOT, 'packages', p, 'project.json'))),
    ];
    const unregistered: string[] = [];
    for (const project of projects) {
      for (const [name, target] of Object.entries(targetsOf(project))) {
        const file = /node --import tsx (experiments\/src\/\S+\.ts)/.exec(target.options?.command ?? '')?.[1];
        if (file && !mains.has(file) && !TOOLS.includes(file)) unregistered.push(`${project}:${name} → ${file}`);
      }
    }
    expect(unregistered).toEqual([]);
  });

  // The tsx CLI runs the script in a child process and SIGKILLs it ~60 ms after relaying
  // a signal the child did not acknowledge, which a child busy in a model step cannot do; so a target
  // that writes runs starts Node with the tsx loader in-process instead.
  it('no target that writes runs starts through the tsx CLI', () => {
    const viaCli: string[] = [];
    for (const project of ['experiments', 'lm', 'evaluation']) {
      for (const [name, target] of Object.entries(targetsOf(project))) {
        if (/^(npx\s+)?tsx\s/.test(target.options?.command ?? '')) viaCli.push(`${project}:${name}`);
      }
    }
    expect(viaCli).toEqual([]);
  });

  it('a sweepable experiment lists the metrics its sweep report shows', () => {
    expect(
      sweepableExperiments()
        .map((e) => e.name)
        .sort(),
    ).toEqual(['correlation', 'finetune', 'mc-variance']);
    for (const def of sweepableExperiments()) expect(def.sweep!.reportMetrics.length).toBeGreaterThan(0);
  });

  it.each(fs.readdirSync(path.join(ROOT, 'experiments', 'sweeps')).filter((f) => f.endsWith('.json')))(
    'grid %s names a sweepable experiment and every point is a valid config',
    (file) => {
      const spec = parseConfig(gridSpecSchema, readJsonFile(path.join(ROOT, 'experiments', 'sweeps', file), 'grid file'), file);
      const def = sweepableExperiments().find((e) => e.name === spec.experiment);
      expect([file, def?.name]).toEqual([file, spec.experiment]);
      const defaults = readJsonFile(path.join(ROOT, 'experiments', 'configs', `${spec.experiment}.json`), 'config file') as Record<
        string,
        unknown
      >;
      expect(expandGrid(def!, spec, defaults, file).length).toBeGreaterThan(1);
    },
  );
});
