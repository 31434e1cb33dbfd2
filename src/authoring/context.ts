/**
 * The handler context of a kit server's call: the request's `_meta`, its
 * cancellation signal and authentication, and the server-to-client features a
 * tool uses mid-call — progress, log messages, sampling and elicitation —
 * each sent on the call's own stream (so on HTTP they reach the right client).
 */
import { CreateMessageResultSchema, ElicitResultSchema, ListRootsResultSchema } from '@modelcontextprotocol/core';
import { inputRequired, type Rounds } from './questions/rounds.js';
import { answerProblem, checkQuestion, expectedOf } from './questions/answers.js';
import type { Server, LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import { ToolErrorSignal } from '../errors.js';
import { defined } from '../json.js';
import type { Caller, ToolContext } from './define-tool.js';
import { BoundedStdioServerTransport } from './serve/stdio.js';
import os from 'node:os';

type Extra = ServerContext;

// The SDK's Server keeps the level each session set (logging/setLevel); its check is private, so it is read as unknown.
function ignored(server: Server, level: LoggingLevel, sessionId: string | undefined): boolean {
  const check: unknown = Reflect.get(server, 'isMessageIgnored');
  return typeof check === 'function' && check.call(server, level, sessionId) === true;
}

const LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

// 2026-07-28: a request asks for log messages with its envelope's logLevel; without one the server sends none.
function belowRequested(level: LoggingLevel, extra: Extra): boolean {
  const requested = (extra.mcpReq as { envelope?: { logLevel?: LoggingLevel } }).envelope?.logLevel;
  return requested === undefined || LEVELS.indexOf(level) < LEVELS.indexOf(requested);
}

// A feature the client did not declare is the tool's own error (the handler may catch it), never a transport failure.
function requireClient(server: Server, feature: 'sampling' | 'elicitation'): void {
  if (server.getClientCapabilities()?.[feature] === undefined) {
    throw new ToolErrorSignal('unsupported', `the client does not offer ${feature}; the tool cannot ask for it`, { feature });
  }
}

// The process owner serving stdio: the person who started the server (a uid when the system has no name for it).
// Read once: a process's owner does not change, and os.userInfo() reads the user database on every call.
let owner: Caller | undefined;
function processOwner(): Caller {
  if (owner !== undefined) return owner;
  let id: string;
  try {
    id = os.userInfo().username;
  } catch {
    id = `uid:${process.getuid?.() ?? 'unknown'}`;
  }
  owner = Object.freeze({ id, via: 'process', scopes: Object.freeze([]) });
  return owner;
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
  if (serving.via === 'stdio' || server.transport instanceof BoundedStdioServerTransport) return processOwner();
  return undefined;
}

/**
 * A notification a handler may send without awaiting it (progress, a log line): a failure (the connection went) is
 * still the awaiting caller's rejection, but never an unhandled one, which would end a Node process.
 */
export function unawaitable<A extends unknown[]>(send: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return (...args) => {
    const sent = send(...args);
    sent.catch(() => undefined);
    return sent;
  };
}

/** The context a handler gets for one call. */
export function toolContext(server: Server, extra: Extra, meta: Readonly<Record<string, unknown>>, serving: Serving): ToolContext {
  const token = extra.mcpReq._meta?.progressToken;
  const context: ToolContext = {
    meta,
    caller: callerOf(server, extra, serving),
    signal: extra.mcpReq.signal,
    ...defined({ authInfo: extra.http?.authInfo }),
    closeStream() {
      extra.http?.closeSSE?.();
    },
    progress: unawaitable(async (progress, options = {}) => {
      if (token === undefined) return; // the client did not ask for progress
      await extra.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...defined({ total: options.total, message: options.message }) },
      });
    }),
    log: unawaitable(async (level, data, logger) => {
      if (serving.era === 'modern' ? belowRequested(level, extra) : ignored(server, level, extra.sessionId)) return;
      await extra.mcpReq.notify({ method: 'notifications/message', params: { level, data, ...defined({ logger }) } });
    }),
    async sample(params) {
      requireClient(server, 'sampling');
      return extra.mcpReq.send({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, { signal: extra.mcpReq.signal });
    },
    async elicit(params) {
      requireClient(server, 'elicitation');
      const request = { method: 'elicitation/create', params } as const;
      const expected = expectedOf(request);
      checkQuestion(expected);
      const answer = await extra.mcpReq.send(request, ElicitResultSchema, { signal: extra.mcpReq.signal });
      // E4: the answer is checked against the question before the handler sees it (in a 2025 task too: issue 58).
      const problem = answerProblem(expected, answer);
      if (problem !== undefined)
        throw new ToolErrorSignal('invalid_answer', `the client's answer to the question ${problem}`, { method: request.method });
      return answer;
    },
    async startTask() {}, // a task starts here only on the 2026-07-28 path of a taskStart: 'handler' tool (tasks/task-after-rounds.ts)
    clientCapabilities: Object.freeze({ ...(server.getClientCapabilities() ?? {}) }),
    async ask(questions) {
      const answers: Record<string, unknown> = {};
      for (const [key, q] of Object.entries(questions))
        answers[key] =
          'elicit' in q
            ? await context.elicit(q.elicit)
            : 'sample' in q
              ? await context.sample(q.sample)
              : { roots: await context.roots() };
      return answers;
    },
    async roots() {
      if (server.getClientCapabilities()?.roots === undefined)
        throw new ToolErrorSignal('unsupported', 'the client does not offer roots; the tool cannot ask for them', { feature: 'roots' });
      const listed = await extra.mcpReq.send({ method: 'roots/list' }, ListRootsResultSchema, { signal: extra.mcpReq.signal });
      return listed.roots;
    },
  };
  return context;
}

/**
 * The context of a 2026-07-28 call: its questions go round trip (questions/rounds.ts). A
 * question already answered — in an earlier round, or by this retry — returns
 * its answer; the first one not answered ends the round, and the handler runs
 * again with it answered.
 */
export function roundsContext(context: ToolContext, rounds: Rounds): ToolContext {
  return {
    ...context,
    sample: async (params, options) => rounds.ask(() => inputRequired.createMessage(params), options?.key),
    elicit: async (params, options) =>
      rounds.ask(() => (params.mode === 'url' ? inputRequired.elicitUrl(params) : inputRequired.elicit(params)), options?.key),
    roots: async (options) => rounds.ask<{ roots: { uri: string; name?: string }[] }>(() => inputRequired.listRoots(), options?.key).roots,
    ask: async (questions) =>
      rounds.askAll(
        Object.fromEntries(
          Object.entries(questions).map(([key, q]) => [
            key,
            () =>
              'elicit' in q
                ? q.elicit.mode === 'url'
                  ? inputRequired.elicitUrl(q.elicit)
                  : inputRequired.elicit(q.elicit)
                : 'sample' in q
                  ? inputRequired.createMessage(q.sample)
                  : inputRequired.listRoots(),
          ]),
        ),
      ),
  };
}
