/** What every command prints with and exits with; imports nothing heavy (`agt --help` loads only this). */
import type { AgtErrorCode } from '../../errors.js';
import { outsideText } from '../../outside-text.js';

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
  sandbox_unavailable: EXIT.launch,
};

/** The sandbox runtime's block of denials in a stderr tail ("<sandbox_violations> … </sandbox_violations>", P5), or ''. */
export function sandboxNotes(tail: string): string {
  const start = tail.lastIndexOf('<sandbox_violations>');
  return start === -1 ? '' : tail.slice(start);
}

/** The lines of a server's stderr tail, indented under a heading (human output of failed probes). */
export function stderrBlock(tail: string): string {
  const lines = tail.replace(/\s+$/, '').split('\n');
  return [`server stderr (last ${lines.length} line${lines.length === 1 ? '' : 's'}):`, ...lines.map((l) => `  | ${outsideText(l)}`)].join(
    '\n',
  );
}
