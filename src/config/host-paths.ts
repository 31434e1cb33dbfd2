/**
 * The path rules of the host a server starts on (R3, P1): what an absolute
 * `cwd` is, what a bare command name is, and how PATH finds a command. POSIX
 * (Linux, macOS) and Windows differ; the rules of this host are chosen by
 * `process.platform` and every function takes other rules, so Windows rules
 * are tested on Linux through the same seam.
 *
 * Windows: an absolute path is `C:\…` (or `C:/…`) or a UNC path
 * `\\server\share\…`. A drive-relative `C:foo`, a root-relative `\foo`, a
 * relative path and a `\\?\` / `\\.\` device path are not accepted as `cwd`
 * (the same R3 message as elsewhere). PATH lookup tries each PATHEXT extension
 * (`.COM;.EXE;.BAT;.CMD` by default), so `npx` finds `npx.cmd`.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The rules of one kind of host. */
export interface HostPaths {
  readonly name: 'posix' | 'win32';
  /** True for a path a server may run in or be started from: absolute on this host. */
  isAbsolute(p: string): boolean;
  /** True for a command name looked up in PATH (no directory part). */
  isBareCommand(command: string): boolean;
  /** Joins and normalises like this host's `path.resolve`. */
  resolve(...parts: string[]): string;
  /** The separator of PATH entries. */
  readonly delimiter: string;
  /** The file names a bare command may have in one PATH directory, in the order they are tried. */
  candidates(command: string, pathExt: string | undefined): string[];
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/** POSIX rules (Linux, macOS). */
export const POSIX_PATHS: HostPaths = {
  name: 'posix',
  isAbsolute: (p) => path.posix.isAbsolute(p),
  isBareCommand: (command) => !command.includes('/') && !command.includes('\\'),
  resolve: (...parts) => path.posix.resolve(...parts),
  delimiter: ':',
  candidates: (command) => [command],
};

/** Windows rules. */
export const WIN32_PATHS: HostPaths = {
  name: 'win32',
  isAbsolute: (p) => /^[A-Za-z]:[\\/]/.test(p) || /^[\\/]{2}(?![?.][\\/])[^\\/]+[\\/][^\\/]+/.test(p),
  isBareCommand: (command) => !command.includes('/') && !command.includes('\\') && !/^[A-Za-z]:/.test(command),
  resolve: (...parts) => path.win32.resolve(...parts),
  delimiter: ';',
  candidates: (command, pathExt) => {
    const exts = (pathExt ?? DEFAULT_PATHEXT)
      .split(';')
      .map((e) => e.trim())
      .filter((e) => e.startsWith('.'));
    // A name that already ends with one of the extensions is tried as written first (`npx.cmd`).
    const own = exts.some((e) => command.toLowerCase().endsWith(e.toLowerCase())) ? [command] : [];
    return [...own, ...exts.map((e) => `${command}${e}`)];
  },
};

/** The rules of this host. */
export function hostPaths(platform: NodeJS.Platform = process.platform): HostPaths {
  return platform === 'win32' ? WIN32_PATHS : POSIX_PATHS;
}

/** True for an existing regular file this process may execute (on Windows: an existing file; execution follows its extension). */
export function isExecutableFile(file: string, rules: HostPaths = hostPaths()): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (rules.name === 'posix') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds a bare `command` in the directories of `pathValue` (absolute ones
 * only), trying each candidate name the rules give; undefined when none is there.
 */
export function findInPath(
  command: string,
  pathValue: string | undefined,
  options: { rules?: HostPaths; pathExt?: string; isFile?: (file: string) => boolean } = {},
): string | undefined {
  const rules = options.rules ?? hostPaths();
  const isFile = options.isFile ?? ((file: string) => isExecutableFile(file, rules));
  for (const dir of (pathValue ?? '').split(rules.delimiter)) {
    if (dir === '' || !rules.isAbsolute(dir)) continue;
    for (const name of rules.candidates(command, options.pathExt)) {
      const candidate = rules.resolve(dir, name);
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}
