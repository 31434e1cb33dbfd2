/**
 * The kit checks every answer it receives to a handler's question before the
 * handler sees it (E4, E5; issue 58): a 2026-07-28 retry's inputResponses, a
 * 2026-07-28 task's `tasks/update`, a 2025 client's answer to a pushed
 * question. An elicitation answer is an ElicitResult (`accept`, `decline` or
 * `cancel`) whose accepted form content is valid for the `requestedSchema`
 * the kit sent, checked with the project's one validator (the
 * ToolSchemaRegistry); a sampling answer is a CreateMessageResult and a roots
 * answer a ListRootsResult (the SDK's schemas). What is wrong is said by
 * question key, path and expectation — never a value.
 */
import { CreateMessageResultSchema, ListRootsResultSchema } from '@modelcontextprotocol/core';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { AgtError, isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { serverWords } from '../../mcp/server-words.js';
import { ToolSchemaRegistry } from '../../schema/registry.js';

/** What an answer is checked against: its question's method, and for an elicitation its mode and requestedSchema. */
export interface Expected {
  method: string;
  params?: { mode?: unknown; requestedSchema?: unknown };
}

const registry = new ToolSchemaRegistry({ maxCached: 200 });
const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

/** What of a question an answer is checked against (kept small: it travels sealed in a 2026-07-28 state). */
export function expectedOf(request: { method: string; params?: unknown }): Expected {
  if (request.method !== 'elicitation/create') return { method: request.method };
  const params = isPlainObject(request.params) ? request.params : {};
  return params.mode === 'url'
    ? { method: request.method, params: { mode: 'url' } }
    : { method: request.method, params: { requestedSchema: params.requestedSchema } };
}

// An elicitation's requestedSchema, loaded by the registry; one it cannot load is the handler's own bug (invalid_input).
function compiled(schema: unknown) {
  try {
    return registry.compile(isPlainObject(schema) ? schema : { type: 'object' }, { tool: 'elicitation' });
  } catch (error) {
    const why = isAgtError(error) ? error.message.replace(/^tool "elicitation": inputSchema/, 'it') : 'it cannot be loaded';
    throw new AgtError('invalid_input', `a question's requestedSchema must be a JSON Schema of an object; ${why}`, {
      details: { field: 'requestedSchema' },
    });
  }
}

/** Throws invalid_input when the question could never be checked (an elicitation whose requestedSchema the validator cannot load). */
export function checkQuestion(expected: Expected): void {
  if (expected.method === 'elicitation/create' && expected.params?.mode !== 'url') compiled(expected.params?.requestedSchema);
}

/**
 * Why `answer` does not answer the question `expected` (the words after "the answer to question …"), or undefined
 * when it does. An elicitation's requestedSchema the validator cannot load throws invalid_input (see checkQuestion).
 */
export function answerProblem(expected: Expected, answer: unknown): string | undefined {
  if (expected.method === 'sampling/createMessage')
    return CreateMessageResultSchema.safeParse(answer).success ? undefined : 'is not a sampling result ({ role, content, model })';
  if (expected.method === 'roots/list')
    return ListRootsResultSchema.safeParse(answer).success ? undefined : 'is not a roots result ({ roots: [{ uri, name? }] })';
  if (expected.method !== 'elicitation/create') return undefined;
  if (!isPlainObject(answer) || !ACTIONS.has(answer.action))
    return 'is not an elicitation result ({ action: "accept", content } | { action: "decline" } | { action: "cancel" })';
  if (answer.action !== 'accept' || expected.params?.mode === 'url') return undefined;
  const schema = expected.params?.requestedSchema;
  const content = answer.content ?? {};
  const verdict = compiled(schema).validate(content, { maxIssues: 1 });
  if (verdict.ok) return undefined;
  const first = verdict.issues[0];
  return `does not match the requestedSchema at "${serverWords(first?.instancePath || '/')}": ${first?.message ?? 'invalid'}`;
}

/** The -32602 refusal of a wrong answer to question `key` (`problem`: from answerProblem; `again`: how to answer it again). */
export function invalidAnswer(key: string, problem: string, again: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `the answer to question "${key}" ${problem}; ${again}`, {
    reason: 'invalid_answer',
    question: key,
  });
}
