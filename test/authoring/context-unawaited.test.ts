/**
 * A handler's progress and log notifications may be sent without awaiting them
 * (`ctx.progress(…)` in a loop): when the connection is gone and the send
 * fails, an awaiting caller still gets the rejection, but one that did not
 * await never leaves an unhandled rejection behind, which would end a host's
 * Node process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from '@modelcontextprotocol/server';
import { toolContext } from '../../src/authoring/context.js';

const seen: unknown[] = [];
const onUnhandled = (reason: unknown) => seen.push(reason);
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  seen.length = 0;
});

// A request whose connection is gone: every notification it sends fails.
function brokenContext() {
  const server = { getClientCapabilities: () => ({}), transport: undefined } as unknown as Server;
  const extra = {
    mcpReq: {
      _meta: { progressToken: 'p1' },
      signal: new AbortController().signal,
      notify: () => Promise.reject(new Error('the connection is closed')),
    },
  } as unknown as Parameters<typeof toolContext>[1];
  return toolContext(server, extra, {}, { era: 'modern' });
}

// Two turns of the event loop: long enough for Node to report a rejection nobody handled.
const turns = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

describe('a handler that does not await its notifications', () => {
  it('progress and log sent and left: no unhandled rejection; awaited: the caller gets the failure', async () => {
    process.on('unhandledRejection', onUnhandled);
    const ctx = brokenContext();
    void ctx.progress(1, { total: 10 });
    void ctx.log('info', 'working');
    await turns();
    expect(seen).toEqual([]);
    await expect(ctx.progress(2)).rejects.toThrow('the connection is closed');
  });
});
