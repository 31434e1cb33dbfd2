/**
 * The handler context of a kit server's call: the request's `_meta`, its
 * cancellation signal and authentication, and the server-to-client features a
 * tool uses mid-call — progress, log messages, sampling and elicitation —
 * each sent on the call's own stream (so on HTTP they reach the right client).
 */
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/core';
import type { Server, LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import { ToolErrorSignal } from '../errors.js';
import { defined } from '../json.js';
import type { Caller, ToolContext } from './define-tool.js';
import { BoundedStdioServerTransport } from './stdio.js';
import os from 'node:os';

type Extra = ServerContext;

// The SDK's Server keeps the level each session set (logging/setLevel); its check is not typed public.
function ignored(server: Server, level: LoggingLevel, sessionId: string | undefined): boolean {
  const check = (server as unknown as { isMessageIgnored?: (level: LoggingLevel, sessionId?: string) => boolean }).isMessageIgnored;
  return typeof check === 'function' && check.call(server, level, sessionId);
}

// A feature the client did not declare is the tool's own error (the handler may catch it), never a transport failure.
function requireClient(server: Server, feature: 'sampling' | 'elicitation'): void {
  if (server.getClientCapabilities()?.[feature] === undefined) {
    throw new ToolErrorSignal('unsupported', `the client does not offer ${feature}; the tool cannot ask for it`, { feature });
  }
}

// The process owner serving stdio: the person who started the server (a uid when the system has no name for it).
function processOwner(): string {
  try {
    return os.userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

/** How the server that runs a call is served (build): its era, and stdio or HTTP. */
export interface Serving {
  era: 'legacy' | 'modern';
  via?: 'stdio' | 'http';
}

/** The caller of a request: its transport's authentication, or the process owner on stdio; never the request's own words. */
function callerOf(server: Server, extra: Extra, serving: Serving): Caller | undefined {
  if (extra.http?.authInfo !== undefined)
    return Object.freeze({ id: extra.http?.authInfo.clientId, via: 'auth', scopes: Object.freeze([...extra.http?.authInfo.scopes]) });
  if (serving.via === 'stdio' || server.transport instanceof BoundedStdioServerTransport)
    return Object.freeze({ id: processOwner(), via: 'process', scopes: Object.freeze([]) });
  return undefined;
}

/** The context a handler gets for one call. */
export function toolContext(server: Server, extra: Extra, meta: Readonly<Record<string, unknown>>, serving: Serving): ToolContext {
  const token = extra.mcpReq._meta?.progressToken;
  return {
    meta,
    caller: callerOf(server, extra, serving),
    signal: extra.mcpReq.signal,
    ...defined({ authInfo: extra.http?.authInfo }),
    closeStream() {
      extra.http?.closeSSE?.();
    },
    async progress(progress, options = {}) {
      if (token === undefined) return; // the client did not ask for progress
      await extra.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...defined({ total: options.total, message: options.message }) },
      });
    },
    async log(level, data, logger) {
      if (ignored(server, level, extra.sessionId)) return;
      await extra.mcpReq.notify({ method: 'notifications/message', params: { level, data, ...defined({ logger }) } });
    },
    async sample(params) {
      requireClient(server, 'sampling');
      return extra.mcpReq.send({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, { signal: extra.mcpReq.signal });
    },
    async elicit(params) {
      requireClient(server, 'elicitation');
      return extra.mcpReq.send({ method: 'elicitation/create', params }, ElicitResultSchema, { signal: extra.mcpReq.signal });
    },
  };
}
