/**
 * Building a snapshot, and rebuilding it at a batch boundary (F1–F4): a
 * candidate is built beside the live one, reusing the live connection of every
 * mount whose resource revision did not change, so a refresh costs only what
 * changed. A mount whose server announced a list change is listed again on its
 * live connection. Only a complete candidate replaces the old snapshot (F3); on
 * failure the old one stays intact and what the candidate opened is closed (F4).
 */
import { AgtError, isAgtError } from '../../errors.js';
import type { FrameworkTool } from '../../framework/tools.js';
import { agentNotices, readAgent, type StoredAgentData } from '../../resources/agent-data.js';
import { type MountContext, loadMount, relistMount, reopenMount } from '../mount.js';
import { loadRegistrySkills } from '../../skills/load.js';
import { accessOf, assembleSnapshot, type LoadedMount, type SnapshotState } from './snapshot.js';
import type { DelegateTool } from '../types.js';

/** What building a snapshot needs. */
export interface BuildContext extends MountContext {
  delegates: readonly DelegateTool[];
  skipBrokenMounts: boolean;
}

/** How a build may use the mounts of the live snapshot. */
export interface Reuse {
  /** The live snapshot's mounts, reused when their stored revision is unchanged. */
  live: ReadonlyMap<string, LoadedMount>;
  /** Mounts whose server announced a change: listed again on the live connection. */
  relist: ReadonlySet<string>;
}

const NO_REUSE: Reuse = { live: new Map(), relist: new Set() };

/** Connects every mount of `agent` (in parallel) and assembles the snapshot; strict unless skipBrokenMounts. */
export async function buildSnapshot(
  agent: StoredAgentData,
  ctx: BuildContext & { framework: readonly FrameworkTool[] },
  reuse: Reuse = NO_REUSE,
): Promise<SnapshotState> {
  const notices: string[] = agentNotices(agent); // an older record's unknown keys: loaded, ignored, said
  const settled = await Promise.allSettled(
    agent.mcps.map(async (reference) => {
      const live = reuse.live.get(reference);
      if (live !== undefined && !live.connection.closed) {
        const record = await ctx.service.store.get('mcp', reference);
        if (record?.revision === live.revision) return reuse.relist.has(reference) ? relistMount(live, ctx.registry, notices) : live; // unchanged: keep the live connection
      }
      return loadMount(reference, ctx, notices);
    }),
  );
  const loaded = new Map<string, LoadedMount>();
  const failures: AgtError[] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') loaded.set(agent.mcps[i] as string, s.value);
    else failures.push(isAgtError(s.reason) ? s.reason : new AgtError('connection_closed', `mount "${agent.mcps[i]}" failed to load`));
  });
  if (failures.length > 0 && !ctx.skipBrokenMounts) {
    await closeNew(loaded, reuse.live);
    throw failures[0] as AgtError;
  }
  for (const failure of failures) notices.push(`${failure.message} (skipped)`);
  try {
    const registrySkills = await loadRegistrySkills(ctx.service, agent.skills, notices);
    return assembleSnapshot({
      settings: agent.settings,
      access: accessOf(agent),
      skills: agent.skills,
      registrySkills,
      loaded,
      framework: ctx.framework,
      delegates: ctx.delegates,
      registry: ctx.registry,
      notices,
    });
  } catch (error) {
    await closeNew(loaded, reuse.live);
    throw error;
  }
}

async function closeNew(loaded: ReadonlyMap<string, LoadedMount>, live: ReadonlyMap<string, LoadedMount>): Promise<void> {
  await Promise.all([...loaded.values()].filter((m) => live.get(m.reference)?.release !== m.release).map((m) => m.release()));
}

/** A refresh's outcome: the new snapshot, or the error that kept the old one. */
export type RefreshOutcome = { ok: true; snapshot: SnapshotState } | { ok: false; error: AgtError };

/** Builds the candidate for `agent` from the stored configuration; never touches `current`. */
export async function refreshSnapshot(
  current: SnapshotState,
  agent: string,
  ctx: BuildContext & { frameworkFor(agent: StoredAgentData): readonly FrameworkTool[] },
  relist: ReadonlySet<string> = new Set(),
): Promise<RefreshOutcome> {
  try {
    const data = readAgent((await ctx.service.read({ kind: 'agent', reference: agent })).data);
    // A refresh reloads mounts; it never changes what the run was started with (F7).
    const pinned: StoredAgentData = { ...data, settings: current.settings as StoredAgentData['settings'] };
    return {
      ok: true,
      snapshot: await buildSnapshot(
        pinned,
        { ...ctx, skipBrokenMounts: false, framework: ctx.frameworkFor(data) },
        { live: current.loaded, relist },
      ),
    };
  } catch (error) {
    return { ok: false, error: isAgtError(error) ? error : new AgtError('connection_closed', 'the refresh failed') };
  }
}

/**
 * Lists the tools of `relist` again on their live connections, and opens the
 * mounts of `reopen` (pooled, their server died) again at the same revision,
 * keeping everything else of `current` as it is: no stored configuration is
 * read, so writes by others are never picked up this way (F8).
 */
export async function relistSnapshot(
  current: SnapshotState,
  relist: ReadonlySet<string>,
  ctx: BuildContext,
  reopen: ReadonlySet<string> = new Set(),
): Promise<RefreshOutcome> {
  const notices: string[] = [];
  const entries = await Promise.allSettled(
    [...current.loaded].map(async ([reference, mount]) => {
      if (reopen.has(reference)) return [reference, await reopenMount(mount, ctx, notices)] as const; // the pool starts it again
      return [reference, relist.has(reference) ? await relistMount(mount, ctx.registry, notices) : mount] as const;
    }),
  );
  // F4 on failure: the old snapshot stays, and what was opened again is given back.
  const failure = async (error: unknown): Promise<RefreshOutcome> => {
    const opened = entries.flatMap((e) => (e.status === 'fulfilled' && reopen.has(e.value[0]) ? [e.value[1]] : []));
    await Promise.all(opened.map((m) => m.release()));
    return { ok: false, error: isAgtError(error) ? error : new AgtError('connection_closed', 'the refresh failed') };
  };
  const rejected = entries.find((e) => e.status === 'rejected');
  if (rejected !== undefined) return failure(rejected.reason);
  try {
    const loaded = new Map(entries.map((e) => (e as PromiseFulfilledResult<readonly [string, LoadedMount]>).value));
    const snapshot = assembleSnapshot({
      settings: current.settings,
      access: current.access,
      skills: current.skills,
      registrySkills: current.registrySkills,
      loaded,
      framework: current.framework,
      delegates: ctx.delegates,
      registry: ctx.registry,
      notices,
    });
    return { ok: true, snapshot };
  } catch (error) {
    return failure(error);
  }
}

/** Closes the connections of `old` that `next` no longer uses. */
export async function closeUnused(old: SnapshotState, next: SnapshotState): Promise<void> {
  const kept = new Set([...next.loaded.values()].map((m) => m.release));
  await Promise.all([...old.loaded.values()].filter((m) => !kept.has(m.release)).map((m) => m.release()));
}
