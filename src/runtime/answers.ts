/**
 * The host's answers to a call's questions (E4), checked before anything is
 * taken, stored or sent: every question the run does not answer itself has
 * an answer, no answer is for a question that was not asked, and an
 * elicitation's answer is valid for its `requestedSchema` (compiled by the
 * run's ToolSchemaRegistry). Then the answers become the protocol's
 * responses: an accepted elicitation, a sampling result, a roots list — or,
 * for a decline, the elicitations declined.
 */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import type { InputMethod } from '../mcp/client-handlers.js';
import type { McpInputRequest } from '../mcp/connection-types.js';
import type { ToolSchemaRegistry } from '../schema/registry.js';
import type { AnswerCheck, StoredApproval } from './approvals.js';
import type { InputDecision } from './types.js';

/** A call and the questions it was asked (a pending call, or a CLI call waiting for --answer). */
export type Asked = Pick<StoredApproval, 'callId' | 'requests'>;

const isUrlElicitation = (r: McpInputRequest) => r.method === 'elicitation/create' && r.params.mode === 'url';

/** The check of answers for a run: `inline` tells which questions the run answers itself (a handler, not deferred). */
export function answerCheck(registry: ToolSchemaRegistry, inline: (method: InputMethod) => boolean): AnswerCheck {
  return (approval, answers) => {
    const requests = approval.requests ?? {};
    const fail = (key: string, message: string, extra: Record<string, unknown> = {}) => {
      throw new AgtError('invalid_input', `the answer to question "${key}" of call "${approval.callId}" ${message}; nothing was sent`, {
        details: { callId: approval.callId, key, ...extra },
      });
    };
    for (const key of Object.keys(answers)) if (!Object.hasOwn(requests, key)) fail(key, 'answers a question that was not asked');
    for (const [key, request] of Object.entries(requests)) {
      if (!Object.hasOwn(answers, key)) {
        if (!inline(request.method)) fail(key, 'is missing (every question this run defers needs an answer)');
        continue;
      }
      const answer = answers[key];
      if (request.method === 'elicitation/create' && !isUrlElicitation(request)) {
        if (!isPlainObject(answer)) fail(key, "must be an object: the form's fields");
        const schema = request.params.requestedSchema;
        const validator = registry.compile(isPlainObject(schema) ? schema : { type: 'object' }, { tool: `question ${key}` });
        const validation = validator.validate(answer);
        if (!validation.ok) {
          const first = validation.issues[0];
          fail(key, `does not match the requested schema at "${first?.instancePath || '/'}": ${first?.message ?? 'invalid'}`, {
            issues: validation.issues.map((i) => ({ instancePath: i.instancePath, keyword: i.keyword })),
          });
        }
      } else if (request.method === 'sampling/createMessage' && !(isPlainObject(answer) && 'content' in answer)) {
        fail(key, 'must be a sampling result: { role, content, model }');
      } else if (request.method === 'roots/list' && !rootsOf(answer)) {
        fail(key, 'must be a list of roots: [{ uri, name? }]');
      }
    }
  };
}

// A roots answer: a list of { uri } or { roots: [...] }.
function rootsOf(answer: unknown): unknown[] | undefined {
  const list = isPlainObject(answer) ? answer.roots : answer;
  return Array.isArray(list) && list.every((r) => isPlainObject(r) && typeof r.uri === 'string') ? list : undefined;
}

/** True when a decline can go to the server: every question is an elicitation (the only kind MCP lets a person decline). */
export const declinable = (approval: Asked): boolean =>
  Object.values(approval.requests ?? {}).every((r) => r.method === 'elicitation/create');

/** The protocol's responses for a decision (answers checked by answerCheck; questions left out are the run's own). */
export function responsesOf(approval: Asked, decision: InputDecision): Record<string, unknown> {
  const requests = approval.requests ?? {};
  const out: Record<string, unknown> = {};
  if ('decline' in decision) {
    for (const key of Object.keys(requests)) out[key] = { action: 'decline' };
    return out;
  }
  for (const [key, answer] of Object.entries(decision.answers)) {
    const request = requests[key] as McpInputRequest;
    if (request.method === 'elicitation/create')
      out[key] = isUrlElicitation(request) ? { action: 'accept' } : { action: 'accept', content: answer };
    else if (request.method === 'roots/list') out[key] = { roots: rootsOf(answer) };
    else out[key] = answer;
  }
  return out;
}
