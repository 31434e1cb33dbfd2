/** Reading what users hand the CLI: config files (JSON or JSONC) and KEY=VALUE lists. */
import fs from 'node:fs';
import path from 'node:path';
import { AgtError } from '../errors.js';
import { setOwn } from '../json.js';
import { parseJsonc } from '../resources/jsonc.js';

/** The largest config file the CLI reads. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** Reads a config file: JSON, or JSONC as VS Code writes it (comments, trailing commas). */
export function readConfigFile(file: string): unknown {
  let text: string;
  try {
    const size = fs.statSync(path.resolve(file)).size;
    if (size > MAX_FILE_BYTES) throw new AgtError('invalid_input', `${file} is ${size} bytes; config files over ${MAX_FILE_BYTES} bytes are refused`, { details: { size, limit: MAX_FILE_BYTES } });
    text = fs.readFileSync(path.resolve(file), 'utf8');
  } catch (error) {
    if (error instanceof AgtError) throw error;
    throw new AgtError('invalid_input', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return parseJsonc(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    // JSON.parse quotes the file's text in its message: only the position is passed on (no values).
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new AgtError('invalid_input', `${file} is not valid JSON or JSONC${at ? ` (near character ${at})` : ''}; check its commas, quotes and brackets`, { details: { reason: 'parse_error' } });
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

/** A positive whole number of milliseconds from a flag, or a usage error naming the flag. */
export function milliseconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 600_000) throw new AgtError('invalid_input', `${flag} must be a whole number of milliseconds between 1 and 600000`);
  return n;
}
