/**
 * The compare-and-set rule of both storage ports (ResourceStore and RunStore),
 * in one place, exported for third-party adapters: every write names the
 * revision it expects (`null`: the record must not exist yet), a mismatch is
 * `revision_conflict` built here, and nothing is written. The CLI rewords the
 * conflict for its flags (src/cli/context.ts); nothing else does.
 */
import { AgtError } from '../errors.js';
import type { ResourceKind } from './types.js';

/** What a compare-and-set was about: a resource (kind and reference) or a suspended run. */
export type ConflictTarget = { kind: ResourceKind; reference: string } | { runId: string };

const described = (target: ConflictTarget): string =>
  'runId' in target ? `run "${target.runId}"` : `${target.kind} "${target.reference}"`;

/** Builds the revision_conflict of a failed compare-and-set (details: the target, expectedRevision, currentRevision). */
export function revisionConflict(target: ConflictTarget, expectedRevision: number | null, currentRevision: number | null): AgtError {
  const expected = expectedRevision === null ? 'that it does not exist' : `revision ${expectedRevision}`;
  const current = currentRevision === null ? 'it does not exist' : `its revision is ${currentRevision}`;
  const fields = 'runId' in target ? { runId: target.runId } : { kind: target.kind, reference: target.reference };
  return new AgtError(
    'revision_conflict',
    `${described(target)} changed: the write expected ${expected}, but ${current}; read it again and retry`,
    {
      details: { ...fields, expectedRevision, currentRevision },
    },
  );
}

/**
 * The expected revision of a `put`: required, `null` (must not exist) or a
 * positive integer; anything else is invalid_input saying so. `port` names the
 * method in the message.
 */
export function expectedRevisionOf(options: unknown, port: string): number | null {
  const value = typeof options === 'object' && options !== null ? (options as { expectedRevision?: unknown }).expectedRevision : undefined;
  if (value === null || (typeof value === 'number' && Number.isInteger(value) && value > 0)) return value;
  throw new AgtError(
    'invalid_input',
    `${port} needs { expectedRevision }: null to create (the record must not exist), or the revision it was read at to update`,
    { details: { field: 'expectedRevision' } },
  );
}

/** The compare-and-set check for adapters that read before they write: throws revision_conflict unless `current` is `expected`. */
export function checkExpectedRevision(target: ConflictTarget, expected: number | null | undefined, current: number | null): void {
  if (expected !== undefined && expected !== current) throw revisionConflict(target, expected, current);
}
