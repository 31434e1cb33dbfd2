/**
 * The last probe of each server, kept beside the CLI's store (`agt.db` →
 * `agt.db.probes.json`) so `agt mcp list` can show its state and tool count.
 * Not part of the registry (R1: a resource holds its config only, and a probe
 * is no certificate, P4): a note names the revision it probed, and one of an
 * older revision is shown as stale. A missing, unreadable or oversized file is
 * no notes at all.
 */
import { oneLine } from '../../outside-text.js';
import fs from 'node:fs';
import type { EraVerdict, ProtocolEra } from '../../mcp/settings/era.js';
import type { ProbeReport } from '../../mcp/probe/prober.js';
import type { EraVerdictStore } from '../../mcp/settings/verdicts.js';
import { MAX_STATE_FILE_BYTES } from '../../bounds.js';

/** What one probe found. */
export interface ProbeNote {
  revision: number;
  at: string;
  ok: boolean;
  tools?: number;
  /** The estimated tokens of the tools' definitions (tool search budgets count these). */
  toolTokens?: number;
  code?: string;
  /** The protocol era and version the server was reached on (E1). */
  era?: ProtocolEra;
  protocolVersion?: string;
  /** What the probe learned of the era, for runs and calls of this revision to skip discovery (E2). */
  verdict?: EraVerdict;
}

/** The note of a probe that connected: what it found, and the era verdict it learned. */
export function noteOfReport(report: ProbeReport, revision: number, at: string): ProbeNote {
  return {
    revision,
    at,
    ok: report.ok,
    tools: report.tools.length,
    toolTokens: report.toolTokens,
    era: report.era,
    protocolVersion: report.protocolVersion,
    verdict: report.verdict,
  };
}

/** The notes file of a store file. */
export const notesFile = (store: string): string => `${store}.probes.json`;

/** Every note, by reference. */
export function readProbeNotes(store: string): Record<string, ProbeNote> {
  try {
    const file = notesFile(store);
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_STATE_FILE_BYTES) return {};
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    for (const note of Object.values(parsed as Record<string, unknown>)) counted(note);
    return parsed as Record<string, ProbeNote>;
  } catch {
    return {};
  }
}

// The file is outside text (anyone may edit it): a count that is not a whole number of 0 or more is no count at all,
// so a sum of counts (`agt agent show`) is a number, never a line of someone's text.
function counted(note: unknown): void {
  if (typeof note !== 'object' || note === null) return;
  const fields = note as Record<string, unknown>;
  for (const key of ['tools', 'toolTokens'])
    if (fields[key] !== undefined && !(Number.isSafeInteger(fields[key]) && (fields[key] as number) >= 0)) delete fields[key];
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
  // The notes file is outside text (anyone may edit it): every value one line.
  const era = note.protocolVersion === undefined ? '' : oneLine`, MCP ${note.protocolVersion}`;
  if (note.ok) return oneLine`✓ ${note.tools ?? 0} tools` + era;
  return note.code === undefined ? oneLine`! ${note.tools ?? 0} tools, problems` + era : oneLine`✗ ${note.code}`;
}

/** The era verdicts of the notes file: what `agt mcp probe` learned, used by `agt mcp call` and runs of the CLI (E2). */
export function notesVerdictStore(store: string): EraVerdictStore {
  return {
    get: (reference) => {
      const notes = readProbeNotes(store);
      const note = Object.hasOwn(notes, reference) ? notes[reference] : undefined;
      return note?.verdict === undefined ? undefined : { revision: note.revision, verdict: note.verdict };
    },
    put: (reference, stored) => {
      const notes = readProbeNotes(store);
      const note = Object.hasOwn(notes, reference) ? notes[reference] : undefined;
      // Only a note of the same revision takes the verdict: a call never claims that a probe happened.
      const kept = note !== undefined && note.revision === stored.revision ? note : undefined;
      if (kept === undefined) return;
      writeProbeNote(store, reference, {
        ...kept,
        era: stored.verdict.era,
        protocolVersion: stored.verdict.protocolVersion,
        verdict: stored.verdict,
      });
    },
    delete: (reference) => {
      const notes = readProbeNotes(store);
      const note = Object.hasOwn(notes, reference) ? notes[reference] : undefined;
      if (note?.verdict === undefined) return;
      const { verdict: _stale, ...kept } = note; // the probe's note stays; only the verdict goes
      writeProbeNote(store, reference, kept);
    },
  };
}
