/**
 * ResourceService: the one place where resources are written and read. The
 * framework tools and the `agt` CLI both call it (R2, A3), so they share every
 * rule: validation, launch rules, add/remove merges, revisions.
 */
import { AgtError, isAgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { checkMountChanges } from './agent-data.js';
import { type ConfigTestReport, testMcpConfig } from '../config/config-test.js';
import { revisionConflict } from './conflict.js';
import { type AgentDescription, describeAgent, type MountStatus, mountStatuses } from './describe.js';
import { checkKeys, checkKind, checkRevision, checkSize, checkTarget, DEFAULT_MAX_DOCUMENT_BYTES } from './input.js';
import { checkCategory, parseReference } from './reference.js';
import { rejectRemovedOptions } from '../config/removed-options.js';
import type { ResourceStore } from './store.js';
import type { ResourceKind, ResourceRecord } from './types.js';
import type { WriteInput, WriteResult } from './write-input.js';
import { nextData, type WritePlan } from './write.js';

export type { WriteFields, WriteInput, WriteResult } from './write-input.js';
import { type RevisionChange, withRevision, type WithRevisionOptions, type WithRevisionResult } from './with-revision.js';
import { DEFAULT_WRITE_ATTEMPTS } from '../bounds.js';

/** A resource named by its kind and reference (agents: the kind may be left out). */
export interface ResourceTarget<K extends ResourceKind = ResourceKind> {
  kind: K;
  reference: string;
}

/** Options of {@link ResourceService}. */
export interface ResourceServiceOptions {
  store: ResourceStore;
  /** Largest `data` accepted, as JSON bytes. Default 256 KiB. */
  maxDocumentBytes?: number;
  /** Compare-and-set attempts of one update under contention before giving up. Default 200. */
  maxAttempts?: number;
}

const WRITE_KEYS = ['kind', 'reference', 'create', 'data', 'add', 'remove', 'expectedRevision'] as const;

// The revision check of the TypeScript API (the model-facing framework tools translate their expected_revision).
function expectedOf(raw: Record<string, unknown>): number | undefined {
  return checkRevision(raw.expectedRevision, 'expectedRevision');
}

// An agent as a reference string or { kind?: 'agent', reference }.
function agentReference(target: string | { kind?: ResourceKind; reference: string }): string {
  if (typeof target === 'string') return target;
  const raw = checkKeys(target, ['kind', 'reference'], 'agent');
  if (raw.kind !== undefined && raw.kind !== 'agent')
    throw new AgtError('invalid_input', 'kind must be "agent" here', { details: { field: 'kind' } });
  return raw.reference as string;
}

/** Writes, reads, tests and describes resources on top of a ResourceStore. */
export class ResourceService {
  /** The store this service writes to. */
  readonly store: ResourceStore;
  readonly #maxBytes: number;
  readonly #maxAttempts: number;
  // Updates of one resource from this process wait for each other, so only
  // other processes race the compare-and-set (N local writers would otherwise
  // retry O(N²) times). Cross-process safety still comes from the store's CAS.
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: ResourceServiceOptions) {
    if (options?.store === undefined) throw new AgtError('invalid_input', 'ResourceService needs { store }');
    this.store = options.store;
    this.#maxBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
    this.#maxAttempts = options.maxAttempts ?? DEFAULT_WRITE_ATTEMPTS;
  }

  /** Creates or updates a resource; updates retry their compare-and-set, so concurrent add/remove never lose each other (A3). */
  async write(input: WriteInput): Promise<WriteResult> {
    const raw = checkKeys(input, WRITE_KEYS, 'resource_write');
    const { kind, reference } = checkTarget(raw);
    if (raw.create !== undefined && typeof raw.create !== 'boolean') throw new AgtError('invalid_input', 'create must be true or false');
    const expected = expectedOf(raw);
    if (raw.data !== undefined) {
      checkSize(raw.data, this.#maxBytes);
      rejectRemovedOptions(raw.data, 'resource_write data'); // A7
    }
    if (kind !== 'agent' && (raw.add !== undefined || raw.remove !== undefined)) {
      throw new AgtError('invalid_input', `add/remove change the mounts of agents; a ${kind} is written whole through "data"`);
    }
    const plan: WritePlan = {
      kind,
      reference,
      data: raw.data,
      add: checkMountChanges(raw.add, 'add'),
      remove: checkMountChanges(raw.remove, 'remove'),
    };
    if (raw.create === true) {
      if (expected !== undefined)
        throw new AgtError('invalid_input', 'expectedRevision applies to updates; a create expects that the resource does not exist');
      return this.#create(plan);
    }
    return this.#update(plan, expected);
  }

  async #create(plan: WritePlan): Promise<WriteResult> {
    const { data, warnings } = await nextData(plan, undefined);
    warnings.push(...(await this.#missingMountWarnings(data, [])));
    try {
      const record = await this.store.put({ kind: plan.kind, reference: plan.reference, data }, { expectedRevision: null });
      return { record, warnings };
    } catch (error) {
      if (isAgtError(error) && error.code === 'revision_conflict') {
        throw new AgtError('already_exists', `${plan.kind} "${plan.reference}" already exists; write with create: false to change it`, {
          details: { kind: plan.kind, reference: plan.reference, currentRevision: error.details?.currentRevision },
        });
      }
      throw error;
    }
  }

  #update(plan: WritePlan, expected: number | undefined): Promise<WriteResult> {
    const key = `${plan.kind}\0${plan.reference}`;
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#updateNow(plan, expected));
    const settled = next.catch(() => undefined);
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return next;
  }

  async #updateNow(plan: WritePlan, expected: number | undefined): Promise<WriteResult> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.store.get(plan.kind, plan.reference);
      if (current === undefined) throw notFound(plan.kind, plan.reference, 'write with create: true to register it');
      if (expected !== undefined && current.revision !== expected) {
        throw revisionConflict({ kind: plan.kind, reference: plan.reference }, expected, current.revision);
      }
      const { data, warnings } = await nextData(plan, current);
      try {
        const record = await this.store.put({ kind: plan.kind, reference: plan.reference, data }, { expectedRevision: current.revision });
        warnings.push(...(await this.#missingMountWarnings(data, current.data)));
        return { record, warnings };
      } catch (error) {
        const conflict = isAgtError(error) && error.code === 'revision_conflict';
        if (!conflict) throw error;
        if (expected !== undefined)
          throw revisionConflict(
            { kind: plan.kind, reference: plan.reference },
            expected,
            (error.details?.currentRevision as number | null) ?? null,
          );
        if (attempt >= this.#maxAttempts) throw error;
        await backoff(attempt); // someone else wrote in between: read again and re-apply
      }
    }
  }

  // Mounting a reference that is not registered is allowed (it may come later), but said.
  async #missingMountWarnings(next: unknown, before: unknown): Promise<string[]> {
    const warnings: string[] = [];
    for (const [list, kind] of [
      ['mcps', 'mcp'],
      ['skills', 'skill'],
    ] as const) {
      const now = listOf(next, list);
      const old = new Set(listOf(before, list));
      for (const ref of now) {
        if (!old.has(ref) && (await this.store.get(kind, ref)) === undefined) {
          warnings.push(`${kind} "${ref}" is not registered; the mount shows as missing until it is`);
        }
      }
    }
    return warnings;
  }

  /**
   * A read-modify-write of one resource under compare-and-set, retried for you: `update(record)` computes the
   * change from the record as read (or undefined: nothing to write), written with that revision; on
   * `revision_conflict` it reads again after a jittered, growing wait, at most `attempts` (default 50) times.
   */
  withRevision<K extends ResourceKind>(
    target: { kind: K; reference: string },
    update: (record: ResourceRecord) => RevisionChange<K> | undefined | Promise<RevisionChange<K> | undefined>,
    options?: WithRevisionOptions,
  ): Promise<WithRevisionResult> {
    return withRevision(this, target, update, options);
  }

  /** Reads a resource with its revision; throws not_found. */
  async read(input: { kind: ResourceKind; reference: string }): Promise<ResourceRecord> {
    const { kind, reference } = checkTarget(checkKeys(input, ['kind', 'reference'], 'resource_read'));
    const record = await this.store.get(kind, reference);
    if (record === undefined) throw notFound(kind, reference, 'check the reference, or list the resources of that kind');
    return record;
  }

  /** Lists resources of a kind, ordered by reference. */
  async list(input: { kind: ResourceKind; category?: string }): Promise<ResourceRecord[]> {
    const raw = checkKeys(input, ['kind', 'category'], 'resource_list');
    const kind = checkKind(raw.kind);
    return raw.category === undefined ? this.store.list(kind) : this.store.list(kind, { category: checkCategory(raw.category) });
  }

  /** Deletes a resource; agents that mount it then show the mount as missing. */
  async delete(input: ResourceTarget & { expectedRevision?: number }): Promise<void> {
    const raw = checkKeys(input, ['kind', 'reference', 'expectedRevision'], 'resource_delete');
    const { kind, reference } = checkTarget(raw);
    const expected = expectedOf(raw);
    try {
      const deleted = await this.store.delete(kind, reference, expected === undefined ? {} : { expectedRevision: expected });
      if (!deleted) throw notFound(kind, reference, 'nothing was deleted');
    } catch (error) {
      if (isAgtError(error) && error.code === 'revision_conflict' && expected !== undefined) {
        const current = (error.details?.currentRevision as number | null) ?? null;
        if (current === null) throw notFound(kind, reference, 'nothing was deleted');
        throw revisionConflict({ kind, reference }, expected, current);
      }
      throw error;
    }
  }

  /** Checks an mcp config statically (P1): never starts a process or opens a connection. */
  async test(input: { kind: 'mcp'; reference: string; inputs?: Record<string, string> }): Promise<ConfigTestReport> {
    const raw = checkKeys(input, ['kind', 'reference', 'inputs'], 'resource_test');
    if (raw.kind !== 'mcp')
      throw new AgtError('invalid_input', 'resource_test checks mcp configs: kind must be "mcp"', { details: { field: 'kind' } });
    const inputs = raw.inputs;
    if (inputs !== undefined && !(isPlainObject(inputs) && Object.values(inputs).every((v) => typeof v === 'string'))) {
      throw new AgtError('invalid_input', 'resource_test: inputs must map input ids to string values', { details: { field: 'inputs' } });
    }
    const record = await this.read({ kind: 'mcp', reference: raw.reference as string });
    return testMcpConfig(record.data, inputs === undefined ? {} : { inputs: inputs as Record<string, string> });
  }

  /** An agent's mounts, each resolved: exists, transport, static problems (A5). */
  async agentMcpList(target: string | { kind?: 'agent'; reference: string }): Promise<MountStatus[]> {
    const reference = agentReference(target);
    parseReference(reference, 'agent reference');
    const agent = await this.read({ kind: 'agent', reference });
    return mountStatuses(this.store, agent);
  }

  /** Identity, binding state and resolved assembly of an agent (A6). */
  async describeAgent(target: string | { kind?: 'agent'; reference: string }): Promise<AgentDescription> {
    const reference = agentReference(target);
    parseReference(reference, 'agent reference');
    return describeAgent(this.store, await this.read({ kind: 'agent', reference }));
  }

  /** `await using service = new ResourceService({ store })` closes the store at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.store.close?.();
  }
}

function listOf(data: unknown, list: 'mcps' | 'skills'): string[] {
  const value = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[list] : undefined;
  return Array.isArray(value) ? (value as string[]) : [];
}

function notFound(kind: ResourceKind, reference: string, hint: string): AgtError {
  return new AgtError('not_found', `${kind} "${reference}" does not exist; ${hint}`, { details: { kind, reference } });
}

function backoff(attempt: number): Promise<void> {
  const cap = Math.min(25, 2 ** Math.min(attempt, 5));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}
