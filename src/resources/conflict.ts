/** The revision_conflict error every store throws, so all adapters say the same. */
import { AgtError } from '../errors.js';
import type { ResourceKind } from './types.js';

/** Builds the revision_conflict error of a failed compare-and-set. */
export function revisionConflict(
  kind: ResourceKind,
  reference: string,
  expectedRevision: number | null,
  currentRevision: number | null,
): AgtError {
  const expected = expectedRevision === null ? 'that it does not exist' : `revision ${expectedRevision}`;
  const current = currentRevision === null ? 'it does not exist' : `its revision is ${currentRevision}`;
  return new AgtError(
    'revision_conflict',
    `${kind} "${reference}" changed: the write expected ${expected}, but ${current}; read it again and retry`,
    { details: { kind, reference, expectedRevision, currentRevision } },
  );
}
