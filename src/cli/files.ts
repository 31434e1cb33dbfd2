/** Reading what users hand the CLI: config files (JSON or JSONC) and KEY=VALUE lists. */
import path from 'node:path';
import { AgtError } from '../errors.js';
import { FileReadError, readBoundedFile, readBoundedStream } from '../files.js';
import { setOwn } from '../json.js';
import { JsoncError, parseJsonc } from '../config/jsonc.js';

/** The largest config file the CLI reads. */
import { HANDSHAKE_MS_RULE, MAX_FILE_BYTES, MAX_JSONC_DEPTH, msProblem } from '../bounds.js';

export { MAX_FILE_BYTES };

const READ_PROBLEMS: Record<string, string> = {
  too_large: `it is larger than ${MAX_FILE_BYTES} bytes; config files over that are refused`,
  not_regular_file: 'it is not a regular file (a pipe, device or directory); give a file, or - for standard input',
};

/**
 * Reads a config file: JSON, or JSONC as VS Code writes it (comments, trailing
 * commas). Only a regular file of at most {@link MAX_FILE_BYTES}, or standard
 * input when the name is `-` or `/dev/stdin`, read the same bounded way.
 */
export async function readConfigFile(file: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<unknown> {
  let text: string;
  try {
    const bytes =
      file === '-' || file === '/dev/stdin'
        ? await readBoundedStream(stdin, MAX_FILE_BYTES)
        : await readBoundedFile(path.resolve(file), MAX_FILE_BYTES);
    text = bytes.toString('utf8');
  } catch (error) {
    const reason = error instanceof FileReadError ? error.reason : 'error';
    throw new AgtError('invalid_input', `cannot read ${file}: ${READ_PROBLEMS[reason] ?? reason}`, {
      details: { reason, ...(reason === 'too_large' ? { limit: MAX_FILE_BYTES } : {}) },
    });
  }
  try {
    return parseJsonc(text);
  } catch (error) {
    // Only the position is passed on, never the file's text (it may hold secrets).
    const at = error instanceof JsoncError ? ` (near character ${error.position})` : '';
    if (error instanceof JsoncError && error.reason === 'TooDeep') {
      throw new AgtError('invalid_input', `${file} nests deeper than ${MAX_JSONC_DEPTH} levels${at}; no MCP config needs that`, {
        details: { reason: 'too_deep' },
      });
    }
    throw new AgtError('invalid_input', `${file} is not valid JSON or JSONC${at}; check its commas, quotes and brackets`, {
      details: { reason: 'parse_error' },
    });
  }
}

/** `K=V` (or `K: V`) items as an object; "__proto__" is a key like any other. */
export function keyValues(list: readonly string[] | undefined, sep: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const at = item.indexOf(sep);
    if (at <= 0) throw new AgtError('invalid_input', `${what} must look like KEY${sep}VALUE`);
    setOwn(out, item.slice(0, at).trim(), item.slice(at + 1).trim());
  }
  return out;
}

/**
 * What `--timeout MS` bounds, the same in every command that connects: the
 * handshake, each list and each call (a command that lists or calls nothing
 * never waits on those). Undefined without the flag.
 */
export function timeoutFlag(
  value: string | undefined,
): { handshakeMs: number; listMs: number; callMs: number; maxTotalMs: number } | undefined {
  const ms = milliseconds(value, '--timeout');
  // A call's whole wait too (a task the server runs, a call that resets its timeout on progress): the person typing
  // `--timeout 3000` waits 3 s, not a task's 30 minutes.
  return ms === undefined ? undefined : { handshakeMs: ms, listMs: ms, callMs: ms, maxTotalMs: ms };
}

/** A positive whole number of milliseconds from a flag, or a usage error naming the flag. */
export function milliseconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const problem = msProblem(n, HANDSHAKE_MS_RULE); // a --timeout bounds the handshake too: the same rule
  if (problem !== undefined) throw new AgtError('invalid_input', `${flag} ${problem}`);
  return n;
}
