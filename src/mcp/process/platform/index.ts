/**
 * The platform seam for starting and ending stdio servers (issue 29): how a
 * launch spec is spawned, how the server's tree is signalled and found alive,
 * and how processes it started outside its group are found. Chosen by
 * `process.platform`; the transport takes another (tests run the macOS one on
 * Linux: it needs only POSIX process groups and `ps`).
 *
 * - linux: process groups, /proc for living members and strays (and a cgroup
 *   where Linux delegates one: stdio-transport.ts).
 * - darwin: process groups; strays from `ps` (no /proc).
 * - win32: `.cmd`/`.bat` through cmd.exe with cross-spawn's quoting; no
 *   process groups: the tree is ended with `taskkill /T /F` after the grace.
 *   Tested through the seam only (CI is Linux).
 */
import { execFile, spawnSync } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { descendantsOf, parsePsTable, PS_ARGS } from './darwin.js';
import { taskkillTree, windowsSpawn } from './win32.js';
import { childless, groupAlive, processAlive, serverProcesses, signalEach, signalGroup, startTicks } from '../process-group.js';

/** What `spawn` gets. */
export interface SpawnTarget {
  command: string;
  args: string[];
  /** Its own process group (POSIX), ended as a whole. */
  detached: boolean;
  windowsVerbatimArguments: boolean;
}

/** How servers start and end on one kind of host. */
export interface ProcessPlatform {
  readonly name: 'linux' | 'darwin' | 'win32';
  /** The spawn of a resolved program with its arguments and environment. */
  spawnTarget(command: string, args: readonly string[], env: Readonly<Record<string, string>>): SpawnTarget;
  /** Signals the server's tree: its process group (POSIX); on Windows SIGKILL ends the tree (taskkill /T /F), SIGTERM does nothing (the grace after stdin closed is the polite ask). */
  signalTree(pid: number, signal: 'SIGTERM' | 'SIGKILL'): void;
  /** True while a process of the server's tree lives. */
  treeAlive(pid: number): boolean;
  /** Living processes the server started outside its group (found by parent link and by the instance tag where the host shows it). */
  strays(pid: number, tag: string, since?: number): Promise<number[]>;
  /** When the server started, as `strays` takes it (`since`: nothing older carries the tag); undefined when the host cannot tell. */
  startTicks?(pid: number): number | undefined;
  /** True when the server has no child process (then none can be orphaned by its exit); undefined when the host cannot tell. */
  childless?(pid: number): boolean | undefined;
  processAlive(pid: number): boolean;
  signalEach(pids: readonly number[], signal: 'SIGTERM' | 'SIGKILL'): void;
}

const posixSpawn = (command: string, args: readonly string[]): SpawnTarget => ({
  command,
  args: [...args],
  detached: true,
  windowsVerbatimArguments: false,
});

/** Linux. */
export const LINUX: ProcessPlatform = {
  name: 'linux',
  spawnTarget: posixSpawn,
  signalTree: signalGroup,
  treeAlive: groupAlive,
  strays: async (pid, tag, since) => serverProcesses(pid, tag, since),
  startTicks,
  childless,
  processAlive,
  signalEach,
};

// The process table from ps, read without blocking the event loop; empty when ps cannot run (then only the group is ended).
// On a loaded machine ps can take seconds, or fail to start at all (EAGAIN: no process slot), and a table missed is a
// stray left running: one that fails is tried again, four more times, after 0.1, 0.3, 0.9 and 2.7 s (a missing ps is not).
const PS_RETRY_WAITS_MS = [100, 300, 900, 2700];
async function psTable(): Promise<ReturnType<typeof parsePsTable>> {
  let table = await psOnce(10_000);
  for (const wait of PS_RETRY_WAITS_MS) {
    if (table !== 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, wait));
    table = await psOnce(30_000);
  }
  return typeof table === 'string' ? [] : table;
}

function psOnce(timeout: number): Promise<ReturnType<typeof parsePsTable> | 'failed' | 'missing'> {
  return new Promise((resolve) => {
    execFile('ps', [...PS_ARGS], { encoding: 'utf8', timeout, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) =>
      resolve(error ? ((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'failed') : parsePsTable(stdout)),
    );
  });
}

/** macOS (and any POSIX host without /proc). */
export const DARWIN: ProcessPlatform = {
  name: 'darwin',
  spawnTarget: posixSpawn,
  signalTree: signalGroup,
  treeAlive: groupAlive,
  strays: async (pid) => descendantsOf(await psTable(), pid),
  processAlive,
  signalEach,
};

/** Windows. */
export const WIN32: ProcessPlatform = {
  name: 'win32',
  spawnTarget: (command, args, env) => {
    const comspec = Object.entries(env).find(([k]) => k.toUpperCase() === 'COMSPEC')?.[1];
    return { ...windowsSpawn(command, args, comspec ?? 'cmd.exe'), detached: false };
  },
  signalTree: (pid, signal) => {
    if (signal !== 'SIGKILL') return;
    const { command, args } = taskkillTree(pid);
    spawnSync(command, args, { stdio: 'ignore', windowsHide: true, timeout: 10_000 });
  },
  treeAlive: processAlive,
  strays: async () => [], // taskkill /T ends the descendants it can see
  processAlive,
  signalEach: (pids, signal) => {
    for (const pid of pids) WIN32.signalTree(pid, signal);
  },
};

// What the SDK's stdio transport inherits on Windows, plus what cmd.exe and .cmd shims need to run (none is a secret).
const WINDOWS_INHERITED = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
  'COMSPEC',
  'PATHEXT',
  'WINDIR',
];

/**
 * The host variables every server gets on Windows (names matched without
 * case, as Windows does; values starting with "()" skipped, as the SDK does).
 * POSIX hosts use the SDK's own list (launch.ts).
 */
export function windowsDefaultEnvironment(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || value.startsWith('()') || !WINDOWS_INHERITED.includes(key.toUpperCase())) continue;
    out[key] = value;
  }
  return out;
}

/** The host variables every server gets on this host: the SDK's list on POSIX, {@link windowsDefaultEnvironment} on Windows. */
export function hostDefaultEnvironment(platform: NodeJS.Platform = process.platform): Record<string, string> {
  return platform === 'win32' ? windowsDefaultEnvironment(process.env) : { ...getDefaultEnvironment() };
}

/** The platform of this host (or of `name`). */
export function processPlatform(name: NodeJS.Platform = process.platform): ProcessPlatform {
  return name === 'win32' ? WIN32 : name === 'linux' ? LINUX : DARWIN;
}
