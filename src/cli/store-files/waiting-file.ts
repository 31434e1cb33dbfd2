/**
 * Calls of `agt mcp call` that wait for answers (E4), kept between two
 * invocations beside the CLI's store (`agt.db` → `agt.db.questions.json`,
 * mode 0600): the server's questions and its `requestState` — verbatim, never
 * printed — keyed by server, revision, tool and a digest of the arguments, so
 * the next `agt mcp call … --answer KEY=JSON` of the same call retries it.
 * Written whole, then renamed; a missing, unreadable or oversized file is no
 * waiting calls.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { MAX_STATE_FILE_BYTES } from '../../bounds.js';
import { isPlainObject } from '../../json.js';
import type { McpInputRequest, McpInputRequired } from '../../mcp/connection-types.js';
import { canonicalHash } from '../../schema/canonical.js';

/** One waiting call. */
export interface WaitingCall {
  requests: Record<string, McpInputRequest>;
  requestState?: string;
  round: number;
  at: string;
}

/** The file of a store file. */
export const waitingFile = (store: string): string => `${store}.questions.json`;

/** The key of a call: its server at a revision, its tool, and a digest of its arguments (never the arguments). */
export function waitingKey(reference: string, revision: number, tool: string, args: unknown): string {
  return createHash('sha256')
    .update(`${reference}\0${revision}\0${tool}\0${canonicalHash(args)}`)
    .digest('hex');
}

function readAll(store: string): Record<string, WaitingCall> {
  try {
    const file = waitingFile(store);
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_STATE_FILE_BYTES) return {};
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return isPlainObject(parsed) ? (parsed as Record<string, WaitingCall>) : {};
  } catch {
    return {};
  }
}

/** The waiting call of `key`, if any. */
export function readWaiting(store: string, key: string): WaitingCall | undefined {
  const all = readAll(store);
  const entry = Object.hasOwn(all, key) ? all[key] : undefined;
  return isPlainObject(entry) && isPlainObject(entry.requests) && Number.isInteger(entry.round) ? entry : undefined;
}

/** Keeps (or, with `asked` undefined, forgets) the waiting call of `key`. */
export function writeWaiting(store: string, key: string, asked: McpInputRequired | undefined, round = 1): void {
  const all = readAll(store);
  if (asked === undefined) {
    if (!Object.hasOwn(all, key)) return;
    delete all[key];
  } else {
    const entry: WaitingCall = { requests: asked.inputRequests, round, at: new Date().toISOString() };
    if (asked.requestState !== undefined) entry.requestState = asked.requestState;
    Object.defineProperty(all, key, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  const file = waitingFile(store);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, JSON.stringify(all), { mode: 0o600, flag: 'w' });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
