/** POSIX shell quoting for the command line the sandbox runtime wraps (it takes one shell string). */
import { AgtError } from '../../../errors.js';

// Linux's limit on one argument (MAX_ARG_STRLEN, with its NUL): the runtime runs the line as `sh -c LINE`.
const MAX_LINE = 128 * 1024;

/** One word, single-quoted: nothing inside it is shell syntax (`'` becomes `'\''`). */
export function shellWord(word: string): string {
  if (word.includes('\0')) {
    throw new AgtError('invalid_config', 'the command or an argument holds a NUL byte, which no command line can carry; remove it', {
      details: { reason: 'nul_in_argument' },
    });
  }
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The line that runs `command args…` exactly (each word quoted; `exec`, so the server is the shell's own
 * process), with PATH set back to the server's own (the wrapper runs on the host's PATH to find bwrap) and
 * `vars` exported (the runtime sets some, such as TMPDIR, for the command; the server's own values win).
 */
export function execLine(
  command: string,
  args: readonly string[],
  path: string | undefined,
  vars: Readonly<Record<string, string>> = {},
): string {
  if (command.startsWith('-'))
    throw new AgtError('invalid_config', 'the command starts with "-", which `exec` would read as an option; name the program', {
      details: { reason: 'command_is_option' },
    });
  const words = [command, ...args].map(shellWord).join(' ');
  const setPath = path === undefined ? 'unset PATH; ' : `export PATH=${shellWord(path)}; `;
  const exports = Object.entries(vars)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${shellWord(value)}; `)
    .join('');
  const line = `${setPath}${exports}exec ${words}`;
  if (Buffer.byteLength(line) >= MAX_LINE)
    throw new AgtError(
      'invalid_config',
      `the sandboxed command line is ${Buffer.byteLength(line)} bytes; the sandbox passes it as one argument, at most ${MAX_LINE - 1}: shorten the arguments (or pass data in a file)`,
      { details: { reason: 'command_line_too_long' } },
    );
  return line;
}
