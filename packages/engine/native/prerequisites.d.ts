// Types of prerequisites.js (plain CommonJS, because it runs at postinstall before anything is compiled).
export interface Probes {
  platform: string;
  isRoot: boolean;
  managers: { apt: boolean; dnf: boolean; brew: boolean };
  openblas: { include: string | null; lib: string | null };
  commands: { cc: boolean; cxx: boolean; make: boolean; python3: boolean };
}
export type Prerequisite = 'openblas' | 'compiler' | 'make' | 'python3';
export type NativePlan =
  { action: 'build' } | { action: 'install'; packages: string[]; line: string } | { action: 'skip' | 'slow' | 'stop'; line: string };
export function planNative(probes: Probes, env: Record<string, string | undefined>): NativePlan;
export function buildFailurePlan(reason: string, env: Record<string, string | undefined>): { action: 'slow' | 'stop'; line: string };
export function missingPrerequisites(probes: Probes): Prerequisite[];
export function probeSystem(): Probes;
type SpawnLike = (cmd: string, args: string[], opts: object) => { status: number | null; stdout?: string | null; stderr?: string | null };
export function aptInstall(packages: string[], run?: SpawnLike): { ok: boolean; output: string };
