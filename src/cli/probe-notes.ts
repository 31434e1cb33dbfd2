/**
 * The last probe of each server, kept beside the CLI's store (`agt.db` →
 * `agt.db.probes.json`) so `agt mcp list` can show its state and tool count.
 * Not part of the registry (R1: a resource holds its config only, and a probe
 * is no certificate, P4): a note names the revision it probed, and one of an
 * older revision is shown as stale. A missing, unreadable or oversized file is
 * no notes at all.
 */
import fs from 'node:fs';

/** What one probe found. */
export interface ProbeNote {
  revision: number;
  at: string;
  ok: boolean;
  tools?: number;
  /** The estimated tokens of the tools' definitions (tool search budgets count these). */
  toolTokens?: number;
  code?: string;
}

const MAX_NOTES_BYTES = 1024 * 1024;

/** The notes file of a store file. */
export const notesFile = (store: string): string => `${store}.probes.json`;

/** Every note, by reference. */
export function readProbeNotes(store: string): Record<string, ProbeNote> {
  try {
    const file = notesFile(store);
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_NOTES_BYTES) return {};
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, ProbeNote>) : {};
  } catch {
    return {};
  }
}

/** Records a probe's outcome (written whole, then renamed: never half a file). */
export function writeProbeNote(store: string, reference: string, note: ProbeNote): void {
  const notes = { ...readProbeNotes(store) };
  Object.defineProperty(notes, reference, { value: note, enumerable: true, writable: true, configurable: true });
  const file = notesFile(store);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, JSON.stringify(notes), { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch {
    fs.rmSync(temp, { force: true }); // a note is a convenience: a read-only home loses it, nothing else
  }
}

/** The state column of `agt mcp list`. */
export function noteText(note: ProbeNote | undefined, revision: number): string {
  if (note === undefined) return '· not probed';
  if (note.revision !== revision) return '? changed since the last probe';
  if (note.ok) return `✓ ${note.tools ?? 0} tools`;
  return note.code === undefined ? `! ${note.tools ?? 0} tools, problems` : `✗ ${note.code}`;
}
