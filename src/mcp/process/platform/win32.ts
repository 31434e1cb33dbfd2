/**
 * Starting and ending servers on Windows (issue 29). Node refuses to spawn a
 * `.cmd`/`.bat` without a shell (CVE-2024-27980), and `npx`, `uvx`, `pnpm`
 * are such shims there: they run through `cmd.exe /d /e:on /v:off /s /c`,
 * with every argument quoted so that it arrives unchanged — the algorithm of
 * cross-spawn (which the SDK's own stdio transport uses): MSVC C runtime
 * quoting, then for batch files `""` inside quotes (cmd.exe parses their `%*`
 * a second time, so `^` escapes would be consumed), for other programs `^`
 * before every cmd.exe metacharacter; `%` is neutralised as `%%cd:~,%` so no
 * `%VAR%` expands. A line break cannot be passed through cmd.exe at all: such
 * an argument is refused, never interpreted. `.exe`/`.com` programs are
 * spawned directly (node quotes their arguments).
 *
 * Ending: `taskkill /T /F /PID` ends the process and its descendants (what
 * VS Code does), after the same grace as POSIX.
 */
import { AgtError } from '../../../errors.js';

/** What to hand `child_process.spawn` on Windows. */
export interface WindowsSpawn {
  command: string;
  args: string[];
  /** True when `args` are already quoted for cmd.exe (spawn must not quote them again). */
  windowsVerbatimArguments: boolean;
}

// cmd.exe metacharacters, escaped with ^ for non-batch programs (% is handled apart).
const META = /([()\][!^"`<>&|;, *?])/g;
const LINE_BREAK = /[\r\n]/;
const EXECUTABLE = /\.(?:com|exe)$/i;
const BATCH = /\.(?:bat|cmd)$/i;
// Windows drops trailing dots and spaces from file names: `x.cmd. ` runs x.cmd.
const TRAILING = /[.\s]+$/;

function noLineBreak(value: string, what: string): void {
  if (LINE_BREAK.test(value)) {
    throw new AgtError('invalid_config', `${what} holds a line break, which cmd.exe cannot pass on (it would end the command); remove it`, {
      details: { reason: 'line_break_in_argument' },
    });
  }
}

/** `%` as `%%cd:~,%`: an empty substring of %cd%, which stops `%VAR%` expansion even inside quotes. */
function neutralisePercent(text: string): string {
  return text.replace(/%/g, '%%cd:~,%');
}

/** Quotes `arg` for the MSVC C runtime rules: backslashes double only before a quote or the end; a quote becomes `quote`. */
export function msvcQuote(arg: string, quote: string): string {
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      backslashes += 1;
      continue;
    }
    out += ch === '"' ? '\\'.repeat(backslashes * 2) + quote : '\\'.repeat(backslashes) + ch;
    backslashes = 0;
  }
  return `${out}${'\\'.repeat(backslashes * 2)}"`;
}

/** One argument for a program run through cmd.exe. */
export function cmdArgument(arg: string, batch: boolean): string {
  noLineBreak(arg, 'an argument');
  if (batch) return neutralisePercent(msvcQuote(arg, '""'));
  return neutralisePercent(msvcQuote(arg, '\\"').replace(META, '^$1'));
}

/**
 * The spawn of a resolved Windows program (`file`: an absolute path found
 * through PATH and PATHEXT) with `args`; `comspec`: `%ComSpec%`.
 */
export function windowsSpawn(file: string, args: readonly string[], comspec = 'cmd.exe'): WindowsSpawn {
  const name = file.replace(/"/g, ''); // file names cannot hold quotes; cmd.exe would drop them
  if (EXECUTABLE.test(name)) return { command: name, args: [...args], windowsVerbatimArguments: false };
  noLineBreak(name, 'the command');
  const batch = BATCH.test(name.replace(TRAILING, ''));
  const line = [`"${neutralisePercent(name)}"`, ...args.map((a) => cmdArgument(a, batch))].join(' ');
  return { command: comspec, args: ['/d', '/e:on', '/v:off', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}

/** The command that ends a process and all its descendants. */
export function taskkillTree(pid: number): { command: string; args: string[] } {
  return { command: 'taskkill', args: ['/T', '/F', '/PID', String(pid)] };
}
