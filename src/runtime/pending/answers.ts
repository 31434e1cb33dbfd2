/**
 * The host's answers to a call's questions (E4), checked before anything is
 * taken, stored or sent, and turned into the protocol's responses. Each
 * answer is the result MCP defines for its question — an elicitation
 * `{ action: 'accept', content } | { action: 'decline' } | { action: 'cancel' }`,
 * a sampling `CreateMessageResult`, a roots `{ roots }` — so one question of
 * a round can be declined while another is answered. Short forms: a plain
 * object is an accepted form's content (an object whose `action` is accept,
 * decline or cancel is the full form), a list is the roots. Every question
 * the run does not answer inline needs an answer, no answer is for a question
 * that was not asked, an accepted form is valid for its `requestedSchema`,
 * and the answers of one round weigh at most MAX_INPUT_ANSWERS_BYTES.
 */
import { MAX_INPUT_ANSWERS_BYTES, MAX_JSON_DEPTH, MAX_INPUT_ROUNDS } from '../../bounds.js';
import { AgtError } from '../../errors.js';
import { defined, isPlainObject, jsonProblem, setOwn } from '../../json.js';
import type { InputMethod } from '../../mcp/requests/client-handlers.js';
import type { InputRetry, McpInputRequest } from '../../mcp/connection-types.js';
import { type QuestionRoute, roundsExceeded } from '../../mcp/requests/input-rounds.js';
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import type { InputDecision } from '../types.js';

/** A call and the questions it was asked (a pending call, or a CLI call waiting for --answer). */
export interface QuestionsAsked {
  callId: string;
  requests?: Record<string, McpInputRequest>;
  requestState?: string;
}

/** Checks the answers to a call's questions before anything is taken or sent; throws invalid_input. */
export type AnswerCheck = (asked: QuestionsAsked, answers: Record<string, unknown>) => void;

/** How the answers of a run (or of the CLI) are read: the registry that compiles requested schemas, and each method's route. */
export interface AnswerRules {
  registry: ToolSchemaRegistry;
  route(method: InputMethod): QuestionRoute;
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);
const isUrlElicitation = (r: McpInputRequest) => r.method === 'elicitation/create' && r.params.mode === 'url';

// An elicitation answer in the protocol's own shape: `action` one of the three, nothing but content and _meta beside it.
const isElicitResult = (answer: unknown): answer is { action: string; content?: unknown } =>
  isPlainObject(answer) &&
  ACTIONS.has(answer.action as string) &&
  Object.keys(answer).every((k) => ['action', 'content', '_meta'].includes(k));

/** The check of answers under `rules` (what `take` runs before a decision is taken). */
export function answerCheck(rules: AnswerRules): AnswerCheck {
  return (asked, answers) => void responsesFor(asked, answers, rules);
}

/**
 * The protocol's responses to `answers`, checked: invalid_input (naming the
 * question and the fix, never a value) for a missing, unasked, malformed or
 * oversized answer. Questions left out are the run's own (inline).
 */
export function responsesFor(asked: QuestionsAsked, answers: Record<string, unknown>, rules: AnswerRules): Record<string, unknown> {
  const requests = asked.requests ?? {};
  const fail = (key: string, message: string, extra: Record<string, unknown> = {}): never => {
    throw new AgtError('invalid_input', `the answer to question "${key}" of call "${asked.callId}" ${message}; nothing was sent`, {
      details: { callId: asked.callId, key, ...extra },
    });
  };
  const problem = jsonProblem(answers, { depth: MAX_JSON_DEPTH, bytes: MAX_INPUT_ANSWERS_BYTES });
  if (problem !== undefined)
    throw new AgtError(
      'invalid_input',
      `the answers to call "${asked.callId}" are ${problem === 'too_deep' ? `nested deeper than ${MAX_JSON_DEPTH} levels` : `over ${MAX_INPUT_ANSWERS_BYTES} bytes as JSON`}; nothing was sent and the call still waits`,
      { details: { callId: asked.callId, reason: problem, limitBytes: MAX_INPUT_ANSWERS_BYTES } },
    );
  for (const key of Object.keys(answers)) if (!Object.hasOwn(requests, key)) fail(key, 'answers a question that was not asked');
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(requests)) {
    const request = requests[key] as McpInputRequest;
    if (!Object.hasOwn(answers, key)) {
      if (rules.route(request.method) !== 'inline') fail(key, 'is missing (every question this run defers needs an answer)');
      continue;
    }
    setOwn(out, key, responseOf(key, request, answers[key], rules.registry, fail));
  }
  return out;
}

// One answer as its question's result.
function responseOf(
  key: string,
  request: McpInputRequest,
  answer: unknown,
  registry: ToolSchemaRegistry,
  fail: (key: string, message: string, extra?: Record<string, unknown>) => never,
): unknown {
  if (request.method === 'sampling/createMessage') {
    if (!(isPlainObject(answer) && 'content' in answer)) fail(key, 'must be a sampling result: { role, content, model }');
    return answer;
  }
  if (request.method === 'roots/list') {
    const list = isPlainObject(answer) ? answer.roots : answer;
    if (!(Array.isArray(list) && list.every((r) => isPlainObject(r) && typeof r.uri === 'string')))
      fail(key, 'must be a list of roots: [{ uri, name? }] or { roots: [...] }');
    return { roots: list };
  }
  const full = isElicitResult(answer);
  if (full && answer.action !== 'accept') return { action: answer.action };
  if (isUrlElicitation(request)) return { action: 'accept' };
  const content = full ? answer.content : answer;
  if (!isPlainObject(content))
    fail(key, "must be the form's fields (an object), or { action: 'accept', content } | { action: 'decline' } | { action: 'cancel' }");
  const schema = request.params.requestedSchema;
  const validation = registry.compile(isPlainObject(schema) ? schema : { type: 'object' }, { tool: `question ${key}` }).validate(content);
  if (!validation.ok) {
    const first = validation.issues[0];
    fail(key, `does not match the requested schema at "${first?.instancePath || '/'}": ${first?.message ?? 'invalid'}`, {
      issues: validation.issues.map((i) => ({ instancePath: i.instancePath, keyword: i.keyword })),
    });
  }
  return { action: 'accept', content };
}

/** True when a decline of the whole call can go to the server: every question is an elicitation (the only kind MCP lets a person decline). */
export const declinable = (asked: QuestionsAsked): boolean =>
  Object.values(asked.requests ?? {}).every((r) => r.method === 'elicitation/create');

/** The retry of a decided call: its questions, the protocol's responses (a whole decline: every elicitation declined) and the state, verbatim. */
export function inputRetry(asked: QuestionsAsked, decision: InputDecision, rules: AnswerRules): InputRetry {
  const requests = asked.requests ?? {};
  let responses: Record<string, unknown>;
  if ('decline' in decision) {
    responses = {};
    for (const key of Object.keys(requests)) setOwn(responses, key, { action: 'decline' });
  } else responses = responsesFor(asked, decision.answers, rules);
  return { requests, responses, ...defined({ requestState: asked.requestState }) };
}

/** The number of the round a server's new questions make, or input_rounds_exceeded past MAX_INPUT_ROUNDS (whoever answers). */
export function nextRound(round: number): number {
  if (round + 1 > MAX_INPUT_ROUNDS) throw roundsExceeded();
  return round + 1;
}
