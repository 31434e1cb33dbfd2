/**
 * The process-wide sandbox host (P5): `@anthropic-ai/sandbox-runtime`'s
 * SandboxManager, loaded only when a server asks for a sandbox (an optional
 * peer, Node >= 22.12), initialized once when the first sandboxed server
 * starts and reset when the last one has ended (a reference count).
 *
 * Signals: the runtime's initialize() adds `process.once('SIGINT')` and
 * `process.once('SIGTERM')` listeners (and `process.once('exit')`, plus an
 * `exit` listener for bwrap mount points at the first wrap). A SIGINT/SIGTERM
 * listener changes what the signal does to a Node process (it no longer
 * exits), so the runtime's own (added with `once` to both) are removed at once;
 * the `exit` listeners stay (they clean up files and proxy sockets and change
 * no behaviour). The runtime adds them once per process, so they never return.
 * What remains: a host that dies of a signal it does not handle runs no
 * clean-up, so the runtime's network bridge (one `socat` on Linux) outlives
 * it; its sandboxed servers end as unsandboxed ones do (stdin closes; bwrap's
 * `--die-with-parent`). A host that handles SIGINT/SIGTERM and ends its
 * connections (or exits normally) leaves nothing.
 */
import { AgtError } from '../../../errors.js';
import { outsideText } from '../../../outside-text.js';
import { missingSandboxPieces, SANDBOX_MIN_NODE, SANDBOX_RUNTIME_PACKAGE } from '../../../config/sandbox-machine.js';
import type { SandboxRuntime } from './runtime-types.js';

/** sandbox_unavailable naming the `missing` pieces, with one line each of what and how to install. */
export function unavailable(missing: string[], lines: string[]): AgtError {
  return new AgtError(
    'sandbox_unavailable',
    `the server asks for a sandbox, but this machine cannot give one (there is no unsandboxed fallback): ${lines.join(' | ')}`,
    { details: { missing } },
  );
}

/**
 * Throws invalid_config when this Node cannot run the sandbox runtime, sandbox_unavailable naming what
 * else is missing (the OS, the package, bwrap/socat/rg in the host's PATH); checked before anything starts.
 */
export function assertCanSandbox(): void {
  const pieces = missingSandboxPieces();
  const node = pieces.find((p) => p.piece === 'node');
  if (node !== undefined && pieces.every((p) => p.piece !== 'os')) {
    throw new AgtError(
      'invalid_config',
      `"sandbox" needs Node >= ${SANDBOX_MIN_NODE} (the sandbox runtime requires it; this is Node ${process.versions.node}): ${node.fix}, or remove "sandbox"; a sandboxed server never starts unsandboxed`,
      { details: { field: 'sandbox', reason: 'node_too_old', node: process.versions.node } },
    );
  }
  if (pieces.length > 0)
    throw unavailable(
      pieces.map((p) => p.piece),
      pieces.map((p) => `${p.piece}: ${p.message}; ${p.fix}`),
    );
}

let runtime: Promise<SandboxRuntime> | undefined;
let users = 0;
let started: Promise<void> | undefined;
let ending: Promise<void> = Promise.resolve();

// The runtime, loaded once (a failed load is tried again next time).
async function load(): Promise<SandboxRuntime> {
  assertCanSandbox();
  runtime ??= import(SANDBOX_RUNTIME_PACKAGE).then(
    (module: { SandboxManager: unknown }) => module.SandboxManager as SandboxRuntime,
    (error: unknown) => {
      runtime = undefined;
      const reason = error instanceof Error ? error.name : 'error';
      throw unavailable([SANDBOX_RUNTIME_PACKAGE], [`${SANDBOX_RUNTIME_PACKAGE}: the package cannot be loaded (${reason}); reinstall it`]);
    },
  );
  return runtime;
}

// What the runtime's own check finds missing (after ours found nothing): its error lines.
function runtimeMissing(manager: SandboxRuntime): string[] {
  if (!manager.isSupportedPlatform()) return [`os: the sandbox runtime does not support ${process.platform}`];
  return manager.checkDependencies().errors.map((e) => `runtime: ${outsideText(e, { max: 300 })}`);
}

// Removes the runtime's SIGINT/SIGTERM clean-up `run` added (one function, new on both signals, added with
// `once`); a listener anything else adds meanwhile (the host's own, during initialize's awaits) stays.
async function keepingSignals(run: () => Promise<void>): Promise<void> {
  const had = new Set([...process.listeners('SIGINT'), ...process.listeners('SIGTERM')]);
  const onceAdded = (signal: NodeJS.Signals) =>
    new Set(process.rawListeners(signal).flatMap((l) => ('listener' in l ? [(l as { listener: unknown }).listener] : [])));
  try {
    await run();
  } finally {
    const terms = onceAdded('SIGTERM');
    for (const listener of onceAdded('SIGINT')) {
      // A once-wrapper's `listener` is the function the runtime added (rawListeners gives wrappers and functions alike).
      if (had.has(listener as never) || !terms.has(listener)) continue;
      process.removeListener('SIGINT', listener as () => void);
      process.removeListener('SIGTERM', listener as () => void);
    }
  }
}

/** A hold on the started sandbox host; release it once the server has ended. */
export interface SandboxHold {
  readonly manager: SandboxRuntime;
  release(): Promise<void>;
}

/**
 * Starts the host for one more sandboxed server (initializing it for the first), or throws invalid_config
 * (Node too old) / sandbox_unavailable (what is missing) — nothing is started then.
 */
export async function holdSandbox(): Promise<SandboxHold> {
  const manager = await load();
  users += 1;
  try {
    await ending; // a reset still running finishes before the next initialize
    started ??= startHost(manager).catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    await started;
  } catch (error) {
    users -= 1;
    throw error;
  }
  let released = false;
  return {
    manager,
    release: async () => {
      if (released) return;
      released = true;
      users -= 1;
      if (users > 0) return;
      const was = started;
      started = undefined;
      ending = (was ?? Promise.resolve()).then(() => manager.reset()).catch(() => undefined);
      await ending;
    },
  };
}

// The runtime's own dependency check, then initialize (its SIGINT/SIGTERM listeners taken out again).
async function startHost(manager: SandboxRuntime): Promise<void> {
  const missing = runtimeMissing(manager);
  if (missing.length > 0) throw unavailable(['sandbox-runtime-check'], missing);
  try {
    await keepingSignals(() => manager.initialize(BASE_CONFIG));
  } catch (error) {
    const why = error instanceof Error ? outsideText(error.message, { max: 300 }) : 'error';
    throw unavailable(
      ['sandbox-runtime-start'],
      [`the sandbox runtime did not start (${why}); check that this machine allows user namespaces`],
    );
  }
}

/** How many sandboxed servers hold the host now (for tests). */
export function sandboxHolders(): number {
  return users;
}

// The host's own rules: nothing allowed; each server's rules come with its wrap (per command).
const BASE_CONFIG = {
  network: { allowedDomains: [] as string[], deniedDomains: [] as string[] },
  filesystem: { denyRead: [] as string[], allowWrite: [] as string[], denyWrite: [] as string[] },
};
