/** What every command gets: the service on the chosen store, output helpers, flags. */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { AgtError, isAgtError } from '../errors.js';
import { redactRecord } from '../config/secrets.js';
import { ResourceService, type WriteFields, type WriteInput, type WriteResult } from '../resources/service.js';
import type { ResourceKind } from '../resources/types.js';
import { SqliteStore } from '../storage/sqlite.js';

import type { McpAuth } from '../mcp/auth/auth.js';
import { storedOAuth } from '../mcp/auth/stored-oauth.js';
import type { TokenStore } from '../mcp/auth/token-store.js';
import { FileTokenStore, tokensFile } from './store-files/token-file.js';
import { outsideJson, outsideText } from '../outside-text.js';

export { EXIT } from './terminal/terminal.js';

/** A command's context. */
export interface CliContext {
  service: ResourceService;
  store: SqliteStore;
  /** The store's file (probe notes live beside it). */
  storeFile: string;
  json: boolean;
  /** --show-secrets: print env and header values instead of `***`. */
  showSecrets: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The logins of `agt mcp login` (a file of mode 0600 beside the store). */
  tokens: TokenStore;
  /** The stored OAuth login of a server (`agt mcp login`), as the auth of its connections; undefined when not logged in. */
  auth?: (reference: string) => Promise<McpAuth | undefined>;
}

/** The store path: --store, else $AGT_HOME/agt.db, else ~/.agt/agt.db. */
export function storePath(flag: string | undefined): string {
  if (flag) return path.resolve(flag);
  const home = process.env.AGT_HOME ? path.resolve(process.env.AGT_HOME) : path.join(os.homedir(), '.agt');
  try {
    fs.mkdirSync(home, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new AgtError('store_unavailable', `cannot create the agt home ${home} (${code}); set AGT_HOME or --store to a writable place`, {
      details: { driverCode: code },
    });
  }
  return path.join(home, 'agt.db');
}

/** Opens the store and the service for one command. */
export function openContext(options: { store?: string; json: boolean; showSecrets?: boolean }): CliContext {
  const storeFile = storePath(options.store);
  const store = new SqliteStore({ path: storeFile });
  const tokens = new FileTokenStore(tokensFile(storeFile));
  const stored = storedOAuth({ tokens });
  return {
    tokens,
    // Only a server with a login gets the OAuth provider: the others keep their header auth and its errors.
    auth: async (reference) =>
      (await tokens.get({ kind: 'mcp', reference })) === undefined ? undefined : stored({ kind: 'mcp', reference }),
    service: new ResourceService({ store }),
    store,
    storeFile,
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

/** Prints a value as JSON (with --json: exact, controls written as \uXXXX) or as text (control characters escaped). */
export function emit(ctx: CliContext, value: unknown, text: () => string): void {
  ctx.out(ctx.json ? outsideJson(value, 2) : outsideText(text(), { multiline: true }));
}

/** The single positional argument of a command, or a usage error. */
export function positional(args: string[], usage: string): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  if (!positionals[0]) throw new AgtError('invalid_input', `usage: ${usage}`);
  return positionals[0];
}

/** The category of a server registered by a bare name (`agt mcp add fs -- …` is `default/fs`). */
export const DEFAULT_CATEGORY = 'default';

/** A server reference as the user typed it: `category/name`, or a bare name in {@link DEFAULT_CATEGORY}. */
export function mcpReference(raw: string): string {
  return raw.includes('/') ? raw : `${DEFAULT_CATEGORY}/${raw}`;
}

/** The category of a skill named bare (`agt skill import` registers `skills/<name>`). */
export const DEFAULT_SKILL_CATEGORY = 'skills';

/** A skill reference from a bare name (`pdf` is `skills/pdf`) or a full one. */
export function skillReference(raw: string): string {
  return raw.includes('/') ? raw : `${DEFAULT_SKILL_CATEGORY}/${raw}`;
}

/** A revision from `--expected-revision`, or a usage error. */
export function revisionFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new AgtError('invalid_input', '--expected-revision must be a revision number (1, 2, …) as `show` prints it');
  return n;
}

// What went wrong in CLI terms: which command to use instead, not which library option to set.
function inCliTerms(error: unknown, kind: string, reference: string, deleting = false): unknown {
  if (!isAgtError(error)) return error;
  const details = error.details ?? {};
  if (details.reference !== undefined && details.reference !== reference) return error; // about another resource
  const problems = Array.isArray(details.problems) ? (details.problems as { field?: unknown }[]) : [];
  if (error.code === 'invalid_config' && problems.some((p) => typeof p.field === 'string' && p.field.endsWith('.cwd'))) {
    return new AgtError('invalid_config', `${error.message}; with agt: pass --cwd DIR (for this folder: --cwd "$PWD")`, { details });
  }
  if (error.code === 'already_exists') {
    return new AgtError(
      'already_exists',
      `${kind} ${reference} is already registered; change it with \`agt ${kind} update ${reference} …\`${kind === 'mcp' ? `, or \`agt mcp delete ${reference}\` first` : ''}`,
      { details },
    );
  }
  if (error.code === 'not_found' && deleting)
    return new AgtError('not_found', `${kind} ${reference} is not registered; nothing was deleted (\`agt ${kind} list\` shows what is)`, {
      details,
    });
  if (error.code === 'not_found')
    return new AgtError(
      'not_found',
      `${kind} ${reference} is not registered; ${kind === 'skill' ? `import it with \`agt skill import <dir> ${reference}\`` : `register it with \`agt ${kind} create ${reference} …\``}`,
      {
        details,
      },
    );
  if (error.code === 'revision_conflict' && typeof details.currentRevision === 'number') {
    return new AgtError(
      'revision_conflict',
      `${kind} ${reference} is at revision ${details.currentRevision}, not ${String(details.expectedRevision)}: someone changed it; look with \`agt ${kind} show ${reference}\`, then retry with --expected-revision ${details.currentRevision}`,
      { details },
    );
  }
  return error;
}

/** `work` on one resource, its failures said in CLI terms (what to run instead). */
export async function inCli<T>(work: Promise<T>, kind: 'mcp' | 'agent' | 'skill', reference: string, deleting = false): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw inCliTerms(error, kind, reference, deleting);
  }
}

/** Writes through the service; failures are said in CLI terms. The data is what the user gave: the service checks it. */
export function cliWrite(ctx: CliContext, input: WriteFields & { kind: ResourceKind; data?: unknown }): Promise<WriteResult> {
  return inCli(ctx.service.write(input as WriteInput), input.kind, input.reference);
}

/** Deletes through the service; failures are said in CLI terms. */
export function cliDelete(ctx: CliContext, input: { kind: 'mcp'; reference: string; expectedRevision?: number }): Promise<void> {
  return inCli(ctx.service.delete(input), input.kind, input.reference, true);
}
