/** A waiting call narrowed to what it waits for (no vitest here: fixture processes import it too). */
import type { PendingCall } from '../../src/index.js';

/** `call`, which must wait for `kind` (else the test fails here, naming what it waits for instead). */
export function waitingOf<K extends PendingCall['waitingFor']>(
  call: PendingCall | undefined,
  kind: K,
): Extract<PendingCall, { waitingFor: K }> {
  if (call?.waitingFor !== kind)
    throw new Error(`expected a call waiting for ${kind}, got ${call === undefined ? 'none' : call.waitingFor}`);
  return call as Extract<PendingCall, { waitingFor: K }>;
}
