/** The time limits of one connection, each reported separately when hit. */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import {
  DEFAULT_CALL_MS,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_HANDSHAKE_MS,
  DEFAULT_LIST_MS,
  DEFAULT_SPAWN_MS,
  HANDSHAKE_MS_RULE,
} from '../../bounds.js';
import { checkMs } from '../../check-ms.js';

/** Milliseconds allowed for each phase of a connection. */
export interface Timeouts {
  /** From spawn to the process running (stdio) or the first response (remote). */
  spawnMs: number;
  /** The `initialize` handshake. */
  handshakeMs: number;
  /** All pages of one list together (`tools/list`, `resources/list`, `prompts/list`, `skills/list`). */
  listMs: number;
  /** Each grace period of close: after stdin ends, and after SIGTERM. */
  closeGraceMs: number;
  /** The answer to one request of a live connection (a tool call, a read); then it is cancelled (`call_timeout`). */
  callMs: number;
  /** Each progress notification of a call starts `callMs` again (the SDK's resetTimeoutOnProgress). Default false. */
  resetOnProgress?: boolean;
  /** With resetOnProgress: the longest a call may take in all, progress or not (the SDK's maxTotalTimeout). Default: none. */
  maxTotalMs?: number;
}

/** Every Timeouts key, once: the compiler fails here when a limit is added and not listed. */
const TIMEOUT_KEY_SET = {
  spawnMs: true,
  handshakeMs: true,
  listMs: true,
  closeGraceMs: true,
  callMs: true,
  resetOnProgress: true,
  maxTotalMs: true,
} as const satisfies Record<keyof Timeouts, true>;

/** The keys `timeouts` knows (what an unknown-key check compares `timeouts.callMS` with). */
export const TIMEOUT_KEYS: readonly (keyof Timeouts)[] = Object.freeze(Object.keys(TIMEOUT_KEY_SET) as (keyof Timeouts)[]);

/** Defaults: a hanging server is given up on in seconds, never the SDK's 60 s (each a bound of bounds.ts; typed by Timeouts here). */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({
  spawnMs: DEFAULT_SPAWN_MS,
  handshakeMs: DEFAULT_HANDSHAKE_MS,
  listMs: DEFAULT_LIST_MS,
  closeGraceMs: DEFAULT_CLOSE_GRACE_MS,
  callMs: DEFAULT_CALL_MS,
});

/** Fills in defaults and checks the values. */
export function resolveTimeouts(partial: Partial<Timeouts> | undefined): Timeouts {
  const out = { ...DEFAULT_TIMEOUTS, ...(partial ?? {}) };
  if (out.resetOnProgress !== undefined && typeof out.resetOnProgress !== 'boolean') {
    throw new AgtError('invalid_input', 'timeouts.resetOnProgress must be true or false', {
      details: { field: 'timeouts.resetOnProgress' },
    });
  }
  for (const [key, value] of Object.entries(out)) {
    if (key === 'resetOnProgress' || (key === 'maxTotalMs' && value === undefined)) continue;
    // A handshake timeout has one rule, in a config and here alike; every other time is a positive number.
    checkMs(value ?? Number.NaN, `timeouts.${key}`, key === 'handshakeMs' ? HANDSHAKE_MS_RULE : {});
  }
  return out;
}

/** True when the SDK gave up waiting for an answer (its request timeout). */
export function isRequestTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}
