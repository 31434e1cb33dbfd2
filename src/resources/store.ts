/**
 * The storage port. Adapters implement only this; every rule about what may
 * be written (validation, add/remove merges, legacy configs) lives in
 * ResourceService, so all adapters behave alike. `storeConformanceSuite` from
 * `agt-mcp/testing` checks an adapter against this contract.
 */
import type { ResourceKind, ResourceRecord } from './types.js';

/** What a store is asked to write: the store assigns revision and timestamps. */
export interface ResourceWrite {
  kind: ResourceKind;
  reference: string;
  data: unknown;
}

/**
 * A resource store.
 *
 * - Records are independent copies: mutating a returned record or the data
 *   passed to `put` never changes what is stored.
 * - `data` is JSON: adapters may serialise it.
 * - Kinds are separate namespaces: `mcp` `a/b` and `agent` `a/b` are different records.
 * - Failures to reach the backing storage throw AgtError `store_unavailable`.
 */
export interface ResourceStore {
  /** The record, or undefined when there is none. */
  get(kind: ResourceKind, reference: string): Promise<ResourceRecord | undefined>;

  /** All records of `kind` (optionally of one category), ordered by reference (code-point order). */
  list(kind: ResourceKind, options?: { category?: string }): Promise<ResourceRecord[]>;

  /**
   * Compare-and-set. `expectedRevision: null` creates the record (revision 1)
   * and fails if it exists; a number replaces the data of the record with
   * exactly that revision (revision + 1, `createdAt` kept) and fails
   * otherwise, including when there is no record. Atomic: of concurrent puts
   * with the same expectation, exactly one succeeds. A failure throws AgtError
   * `revision_conflict` with `details.currentRevision` (number or null) and
   * writes nothing.
   */
  put(record: ResourceWrite, options: { expectedRevision: number | null }): Promise<ResourceRecord>;

  /**
   * Deletes the record; false when there was none. With `expectedRevision`,
   * deletes only that revision, else throws `revision_conflict`.
   */
  delete(kind: ResourceKind, reference: string, options?: { expectedRevision?: number }): Promise<boolean>;

  /** Releases connections or handles. The store is not used afterwards. */
  close?(): Promise<void>;
}
