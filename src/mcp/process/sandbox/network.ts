/**
 * Network rules of the servers a host runs sandboxed at once. Each server's
 * `allowedDomains` is its own (the runtime's per-command allow list, keyed by
 * an unguessable id its proxy user name carries). The runtime has one
 * `deniedDomains` per process: it is the union of the live servers' denies,
 * so a deny of one server applies to every server running alongside it (a
 * deny only ever narrows).
 */
import type { SandboxRuntime } from './runtime-types.js';

const denies = new Map<string, readonly string[]>();

// Installs the union of the live servers' denies as the runtime's deniedDomains.
function apply(manager: SandboxRuntime): void {
  const config = manager.getConfig();
  if (config === undefined) return;
  const union = [...new Set([...denies.values()].flat())].sort();
  const current = [...(config.network.deniedDomains ?? [])].sort();
  if (union.join('\n') === current.join('\n')) return;
  manager.updateConfig({ ...config, network: { ...config.network, deniedDomains: union } });
}

/** Gives the server under `commandId` its network rules; the returned function takes them back. */
export function holdNetwork(
  manager: SandboxRuntime,
  commandId: string,
  network: { allowedDomains: string[]; deniedDomains: string[] },
): () => void {
  if (network.deniedDomains.length > 0) {
    denies.set(commandId, network.deniedDomains);
    apply(manager);
  }
  if (network.allowedDomains.length > 0) manager.registerCommandNetworkLists(commandId, { allowedDomains: network.allowedDomains });
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    manager.unregisterCommandNetworkLists(commandId);
    if (denies.delete(commandId)) apply(manager);
  };
}
