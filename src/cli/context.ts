/** What every command gets: the service on the chosen store, output helpers, flags. */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import { redactRecord } from '../resources/secrets.js';
import { ResourceService } from '../resources/service.js';
import { SqliteStore } from '../storage/sqlite.js';

/** Exit codes of `agt` (documented in docs/cli.md). */
export const EXIT = { ok: 0, failed: 1, usage: 2, conflict: 3, launch: 4, store: 5 } as const;

/** A command's context. */
export interface CliContext {
  service: ResourceService;
  store: SqliteStore;
  json: boolean;
  /** --show-secrets: print env and header values instead of `***`. */
  showSecrets: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The store path: --store, else $AGT_HOME/agt.db, else ~/.agt/agt.db. */
export function storePath(flag: string | undefined): string {
  if (flag) return path.resolve(flag);
  const home = process.env.AGT_HOME ? path.resolve(process.env.AGT_HOME) : path.join(os.homedir(), '.agt');
  try {
    fs.mkdirSync(home, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new AgtError('store_unavailable', `cannot create the agt home ${home} (${code}); set AGT_HOME or --store to a writable place`, { details: { driverCode: code } });
  }
  return path.join(home, 'agt.db');
}

/** Opens the store and the service for one command. */
export function openContext(options: { store?: string; json: boolean; showSecrets?: boolean }): CliContext {
  const store = new SqliteStore({ path: storePath(options.store) });
  return {
    service: new ResourceService({ store }),
    store,
    json: options.json,
    showSecrets: options.showSecrets ?? false,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  };
}

/** A record as the CLI may show it: mcp env and header values as `***` unless --show-secrets. */
export function shown<R extends { kind: string; data: unknown }>(ctx: CliContext, record: R): R {
  return ctx.showSecrets ? record : redactRecord(record);
}

// Control characters (ESC, CR, BEL, …) of stored names and descriptions would drive the
// terminal; human output shows them escaped (`\x1b`). Newlines and tabs stay.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with its control characters (but newline and tab) shown as `\xNN`. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Prints a value as JSON (with --json: exact) or as text (control characters escaped). */
export function emit(ctx: CliContext, value: unknown, text: () => string): void {
  ctx.out(ctx.json ? JSON.stringify(value, null, 2) : printable(text()));
}

/** The single positional argument of a command, or a usage error. */
export function positional(args: string[], usage: string): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  if (!positionals[0]) throw new AgtError('invalid_input', `usage: ${usage}`);
  return positionals[0];
}
