/** Shared test helpers: raw JSON-RPC over HTTP to a kit server — a 2025 session, the answer in a POST's body. */
import { expect } from 'vitest';

/** A JSON-RPC answer as the task tests read it. */
export interface RpcAnswer {
  result?: Record<string, unknown> & { task?: { taskId: string; status: string; ttl: number }; tasks?: { taskId: string }[] };
  error?: { code: number; message: string; data?: unknown };
}

/** The answer to request `id` in a POST's body: plain JSON, or the SSE stream the SDK's transport answers with. */
export function answerOf(body: string, id: number): RpcAnswer {
  const messages = body.trimStart().startsWith('{')
    ? [JSON.parse(body) as { id?: number }]
    : body
        .split('\n')
        .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '') // a resumable stream's priming event is empty
        .map((l) => JSON.parse(l.slice(5)) as { id?: number });
  const answer = messages.find((m) => m.id === id);
  if (answer === undefined) throw new Error(`no answer to request ${id}`);
  return answer as RpcAnswer;
}

/**
 * Opens a raw 2025-11-25 session over HTTP (its own Mcp-Session-Id, optionally a bearer token) and returns
 * its `rpc`, which may be abandoned (its fetch aborted) like a client that went away.
 */
export async function rawSession(url: string, token?: string) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const post = (body: object, signal?: AbortSignal) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
  const opened = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, clientInfo: { name: 'raw', version: '1.0.0' } },
  });
  expect(opened.status).toBe(200);
  await opened.text();
  headers['mcp-session-id'] = opened.headers.get('mcp-session-id') as string;
  headers['mcp-protocol-version'] = '2025-11-25';
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  let next = 0;
  return async (method: string, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<RpcAnswer> => {
    const id = ++next;
    return answerOf(await (await post({ jsonrpc: '2.0', id, method, params }, signal)).text(), id);
  };
}

/** The task id a `tools/call` answered with, expecting no error. */
export function taskIdOf(answer: RpcAnswer): string {
  expect(answer.error).toBeUndefined();
  return answer.result?.task?.taskId as string;
}

/** One raw 2026-07-28 request (no session), declaring the Tasks extension (unless `tasks` is false) and elicitation. */
export async function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
  tasks = true,
  signal?: AbortSignal,
): Promise<RpcAnswer> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {
      elicitation: {},
      ...(tasks ? { extensions: { ['io.modelcontextprotocol/tasks']: {} } } : {}),
    },
  };
  const name = typeof params.name === 'string' ? params.name : (params.taskId as string);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
    ...(signal === undefined ? {} : { signal }),
  });
  return answerOf(await res.text(), 1);
}
