/** What every command prints with and exits with; imports nothing heavy (`agt --help` loads only this). */
import type { AgtErrorCode } from '../errors.js';

/** Exit codes of `agt` (documented in docs/cli.md). */
export const EXIT = { ok: 0, failed: 1, usage: 2, conflict: 3, launch: 4, store: 5, waiting: 6 } as const;

/** The exit status of each error code (docs/cli.md); the type makes a new code a compile error here until it is mapped. */
export const CODE_EXIT: Record<AgtErrorCode, number> = {
  invalid_input: EXIT.usage,
  option_removed: EXIT.usage,
  invalid_config: EXIT.usage,
  schema_load_failed: EXIT.failed,
  forbidden: EXIT.failed,
  not_found: EXIT.conflict,
  already_exists: EXIT.conflict,
  revision_conflict: EXIT.conflict,
  fingerprint_mismatch: EXIT.conflict,
  spawn_failed: EXIT.launch,
  exited_early: EXIT.launch,
  handshake_timeout: EXIT.launch,
  protocol_error: EXIT.launch,
  connection_closed: EXIT.launch,
  auth_required: EXIT.launch,
  call_timeout: EXIT.launch,
  cancelled: EXIT.failed,
  batch_rejected: EXIT.failed,
  output_invalid: EXIT.failed,
  approval_stale: EXIT.failed,
  store_unavailable: EXIT.store,
  server_unavailable: EXIT.launch,
  protocol_mismatch: EXIT.launch,
  input_stale: EXIT.failed,
  input_rounds_exceeded: EXIT.failed,
  model_response_invalid: EXIT.failed,
  interrupted: EXIT.failed,
  task_lost: EXIT.failed,
  skill_unverified: EXIT.failed,
};

// Control characters (ESC, CR, BEL, …) of stored names and descriptions would drive the
// terminal; human output shows them escaped (`\x1b`). Newlines and tabs stay.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with its control characters (but newline and tab) shown as `\xNN`. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `text` for one line: control characters escaped and line breaks too, so a server's words can never start a line of their own. */
export function printableLine(text: string): string {
  return printable(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

/** The lines of a server's stderr tail, indented under a heading (human output of failed probes). */
export function stderrBlock(tail: string): string {
  const lines = tail.replace(/\s+$/, '').split('\n');
  return [`server stderr (last ${lines.length} line${lines.length === 1 ? '' : 's'}):`, ...lines.map((l) => `  | ${printable(l)}`)].join(
    '\n',
  );
}
