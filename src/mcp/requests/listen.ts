/**
 * Change notifications on the 2026-07-28 era: a server sends list changes and
 * resource updates only on a `subscriptions/listen` stream the client opened.
 * One stream per connection, opened on the SDK's `client.listen()` with the
 * list changes the server declares and the resources subscribed to; what
 * arrives on it goes through the same handlers as 2025-era notifications (the
 * NotificationHub), so F-rules (refresh at the batch boundary) are unchanged.
 */
import type { Client } from '@modelcontextprotocol/client';
import { isPlainObject } from '../../json.js';

// The listener's own tuning, not an option: how a modern connection's change stream recovers from drops.
/** Waits before listening again after the stream dropped without the server closing it. */
const RELISTEN_MS = 1000;
/** Listening again stops after this many drops in a row (a server that keeps dropping the stream). */
const MAX_RELISTENS = 5;

/** The subscription stream of a modern connection. */
export interface ChangeListener {
  /** Subscribes to updates of one resource (the stream is opened again with it). */
  subscribe(uri: string): Promise<void>;
  /** Ends the updates of one resource. */
  unsubscribe(uri: string): Promise<void>;
  /** Closes the stream for good; no timer or request is left. */
  stop(): Promise<void>;
}

interface Stream {
  close(): Promise<void>;
  readonly closed: Promise<'local' | 'graceful' | 'remote'>;
}

/** Opens the connection's stream of change notifications (resolves once the server acknowledged it). */
export async function listenForChanges(client: Client, timeoutMs: number): Promise<ChangeListener> {
  const declared = client.getServerCapabilities() ?? {};
  const listChanged = (name: 'tools' | 'prompts' | 'resources') => {
    const capability: unknown = declared[name];
    return isPlainObject(capability) && capability.listChanged === true;
  };
  const resources = new Set<string>();
  let stream: Stream | undefined;
  let stopped = false;
  let drops = 0;
  let timer: NodeJS.Timeout | undefined;

  const filter = () => ({
    ...(listChanged('tools') ? { toolsListChanged: true } : {}),
    ...(listChanged('prompts') ? { promptsListChanged: true } : {}),
    ...(listChanged('resources') ? { resourcesListChanged: true } : {}),
    ...(resources.size > 0 ? { resourceSubscriptions: [...resources] } : {}),
  });
  const open = async (): Promise<void> => {
    const wanted = filter();
    if (stopped || Object.keys(wanted).length === 0) return;
    const opened = (await client.listen(wanted, { timeout: timeoutMs })) as Stream;
    stream = opened;
    void opened.closed.then((reason) => {
      if (stream !== opened) return; // replaced by a newer stream
      stream = undefined;
      if (reason !== 'remote' || stopped || ++drops > MAX_RELISTENS) return;
      timer = setTimeout(() => void open().catch(() => undefined), RELISTEN_MS);
      timer.unref();
    });
  };
  const reopen = async () => {
    const old = stream;
    stream = undefined;
    await old?.close().catch(() => undefined);
    drops = 0;
    await open();
  };
  await open();
  return {
    subscribe: async (uri) => {
      resources.add(uri);
      await reopen();
    },
    unsubscribe: async (uri) => {
      if (!resources.delete(uri)) return;
      await reopen();
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      const old = stream;
      stream = undefined;
      await old?.close().catch(() => undefined);
    },
  };
}
