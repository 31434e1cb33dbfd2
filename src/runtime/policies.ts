/**
 * Built-in permission policies (G4): explicit auto-allow, human approval,
 * model review, and a chain of them. Every real call passes one; there is no
 * MCP master switch. Default is deny.
 */
import type { PermissionDecision, PermissionPolicy, PermissionRequest } from './types.js';

/** What `autoAllow` matches: an alias or mount reference, a RegExp on the tool name, a predicate, or a list of these. */
export type AutoAllowMatch = string | RegExp | ((request: PermissionRequest) => boolean) | (string | RegExp)[];

function matches(match: AutoAllowMatch, request: PermissionRequest): boolean {
  if (Array.isArray(match)) return match.some((m) => matches(m, request));
  if (typeof match === 'function') return match(request);
  if (match instanceof RegExp) return match.test(request.tool);
  if (match === '*') return true;
  // A string names a tool (alias, framework or delegate name) or a whole mount ("tools/files").
  return match === request.tool || (request.mount !== undefined && match === request.mount);
}

const ABSTAIN: PermissionDecision = Object.freeze({ decision: 'abstain', by: 'policy' });

/** Allows matching calls without asking; abstains for the rest. */
function autoAllow(match: AutoAllowMatch): PermissionPolicy {
  return {
    async review(request) {
      return matches(match, request) ? { decision: 'allow', by: 'auto' } : ABSTAIN;
    },
  };
}

/** Asks a human through the host's callback: true allows, false denies. */
function human(ask: (request: PermissionRequest) => Promise<boolean>): PermissionPolicy {
  return {
    async review(request) {
      return (await ask(request)) ? { decision: 'allow', by: 'human' } : { decision: 'deny', by: 'human', reason: 'denied by a human reviewer' };
    },
  };
}

/** Asks a reviewing model through the host's callback: true allows, false denies. */
function modelReview(review: (request: PermissionRequest) => Promise<boolean>): PermissionPolicy {
  return {
    async review(request) {
      return (await review(request)) ? { decision: 'allow', by: 'model' } : { decision: 'deny', by: 'model', reason: 'denied by the reviewing model' };
    },
  };
}

/** The first decision that is not `abstain` wins; all abstaining denies. */
function chain(...list: PermissionPolicy[]): PermissionPolicy {
  return {
    async review(request) {
      for (const policy of list) {
        const verdict = await policy.review(request);
        if (verdict.decision !== 'abstain') return verdict;
      }
      return { decision: 'deny', by: 'policy', reason: 'no policy allowed this call (default deny)' };
    },
  };
}

/** Denies everything (the default when a host gives no policy). */
function denyAll(): PermissionPolicy {
  return { review: async () => ({ decision: 'deny', by: 'policy', reason: 'no policy allows this call' }) };
}

/** The built-in policies. */
export const policies = { autoAllow, human, modelReview, chain, denyAll };
