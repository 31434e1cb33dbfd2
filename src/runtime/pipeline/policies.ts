/**
 * Built-in permission policies (G4): explicit auto-allow, human approval
 * (in process, or deferred to a decision that may come from another process),
 * model review, and a chain of them. Every real call passes one; there is no
 * MCP master switch. Default is deny.
 */
import { AgtError } from '../../errors.js';
import { checkKnownKeys } from '../../config/unknown-keys.js';
import type { PermissionDecision, PermissionPolicy, PermissionRequest } from '../types.js';

/**
 * Matches MCP calls by their tool's annotations. Every field given must hold;
 * a hint the server left out takes its MCP default (readOnlyHint false,
 * destructiveHint true, idempotentHint false, openWorldHint true). Annotations
 * are declared by the server, so they are only as trustworthy as the server:
 * `mounts` limits the match to servers you trust. Framework and delegate calls
 * never match.
 */
export interface AnnotationMatch {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
  /** Only calls to these mounts ("category/name") match. */
  mounts?: string[];
}

/** What a policy matches: an alias or mount reference, a RegExp on the tool name, annotations, a predicate, or a list of these. */
export type AutoAllowMatch =
  string | RegExp | AnnotationMatch | ((request: PermissionRequest) => boolean) | (string | RegExp | AnnotationMatch)[];

function annotationsMatch(match: AnnotationMatch, request: PermissionRequest): boolean {
  if (request.kind !== 'mcp') return false;
  if (match.mounts !== undefined && (request.mount === undefined || !match.mounts.includes(request.mount))) return false;
  const a = request.annotations ?? {};
  const hint = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);
  const readOnly = hint(a.readOnlyHint, false);
  const checks: [boolean | undefined, boolean][] = [
    [match.readOnly, readOnly],
    [match.destructive, !readOnly && hint(a.destructiveHint, true)], // destructiveHint means something only when not read-only
    [match.idempotent, readOnly || hint(a.idempotentHint, false)], // a read-only tool is idempotent
    [match.openWorld, hint(a.openWorldHint, true)],
  ];
  return checks.every(([wanted, actual]) => wanted === undefined || wanted === actual);
}

const ANNOTATION_KEYS = [
  'readOnly',
  'destructive',
  'idempotent',
  'openWorld',
  'mounts',
] as const satisfies readonly (keyof AnnotationMatch)[];

/**
 * Checks a match as a policy or `toolSearch.pinned` takes it: an annotation match with a misspelled key (`readonly`)
 * would hold for every call — an autoAllow of everything — so it is invalid_input naming the key and the closest; a
 * hint must be true or false, `mounts` a list of references.
 */
export function checkMatch(match: unknown, where: string): void {
  if (Array.isArray(match)) {
    match.forEach((m, i) => checkMatch(m, `${where}[${i}]`));
    return;
  }
  if (typeof match === 'string' || typeof match === 'function' || match instanceof RegExp) return;
  if (typeof match !== 'object' || match === null)
    throw new AgtError('invalid_input', `${where}: a match is a name, a RegExp, an annotation match, a predicate or a list of these`, {
      details: { field: where },
    });
  checkKnownKeys(match, ANNOTATION_KEYS, where, true, 'an annotation match knows readOnly, destructive, idempotent, openWorld and mounts');
  const m = match as Record<string, unknown>;
  for (const key of ANNOTATION_KEYS)
    if (key !== 'mounts' && m[key] !== undefined && typeof m[key] !== 'boolean')
      throw new AgtError('invalid_input', `${where}.${key} must be true or false`, { details: { field: `${where}.${key}` } });
  if (m.mounts !== undefined && (!Array.isArray(m.mounts) || !m.mounts.every((x) => typeof x === 'string')))
    throw new AgtError('invalid_input', `${where}.mounts must be a list of references ("category/name")`, {
      details: { field: `${where}.mounts` },
    });
}

/** True when `match` matches the call `request` (the rule of autoAllow, deny and approval). */
export function matches(match: AutoAllowMatch, request: PermissionRequest): boolean {
  if (Array.isArray(match)) return match.some((m) => matches(m, request));
  if (typeof match === 'function') return match(request);
  if (match instanceof RegExp) return match.test(request.tool);
  if (typeof match === 'object' && match !== null) return annotationsMatch(match, request);
  if (match === '*') return true;
  // A string names a tool (alias, framework or delegate name) or a whole mount ("tools/files").
  return match === request.tool || (request.mount !== undefined && match === request.mount);
}

const ABSTAIN: PermissionDecision = Object.freeze({ decision: 'abstain', by: 'policy' });

/**
 * Internal: the built-in policies that decide by matching (autoAllow, deny,
 * approval and chains of them) decide at once, with no promise; the pipeline
 * asks them so, and copies the arguments for them only when a predicate of
 * theirs could read them.
 */
export const DECIDES_AT_ONCE: unique symbol = Symbol('agt-mcp.decidesAtOnce');

/** How a built-in policy decides at once. */
export interface AtOnce {
  decide(request: PermissionRequest): PermissionDecision;
  /** False when no predicate of the policy's matches can see the arguments. */
  readsArguments: boolean;
}

/** The way `policy` decides at once, if it is a built-in one that can. */
export const atOnceOf = (policy: PermissionPolicy): AtOnce | undefined => (policy as { [DECIDES_AT_ONCE]?: AtOnce })[DECIDES_AT_ONCE];

const hasPredicate = (match: AutoAllowMatch): boolean =>
  typeof match === 'function' || (Array.isArray(match) && match.some((m) => typeof m === 'function'));

// A policy that decides by `decide` (its review is the same decision, as a promise).
function atOnce(decide: AtOnce['decide'], readsArguments: boolean): PermissionPolicy {
  const policy = { review: async (request: PermissionRequest) => decide(request) };
  return Object.defineProperty(policy, DECIDES_AT_ONCE, { value: { decide, readsArguments } });
}

function decidedBy(match: AutoAllowMatch, verdict: PermissionDecision, name: string): PermissionPolicy {
  checkMatch(match, `policies.${name}`);
  return atOnce((request) => (matches(match, request) ? verdict : ABSTAIN), hasPredicate(match));
}

/** Allows matching calls without asking; abstains for the rest. */
function autoAllow(match: AutoAllowMatch): PermissionPolicy {
  return decidedBy(match, Object.freeze({ decision: 'allow', by: 'auto' }), 'autoAllow');
}

/** Denies matching calls (e.g. `{ destructive: true }`); abstains for the rest. Put it first in a chain. */
function deny(match: AutoAllowMatch, reason = 'denied by policy'): PermissionPolicy {
  return decidedBy(match, Object.freeze({ decision: 'deny', by: 'policy', reason }), 'deny');
}

/**
 * Defers matching calls: they do not run, and wait — in this process or, with
 * the run suspended to a RunStore, in another — until the host decides them
 * with `run.decide` (docs/hosts.md, "Approvals that wait"); abstains for the rest.
 */
function approval(match: AutoAllowMatch, reason = 'this call needs an approval'): PermissionPolicy {
  return decidedBy(match, Object.freeze({ decision: 'defer', by: 'policy', reason }), 'approval');
}

/** Asks a human through the host's callback, holding the call open in this process: true allows, false denies. */
function human(ask: (request: PermissionRequest) => Promise<boolean>): PermissionPolicy {
  return {
    async review(request) {
      return (await ask(request))
        ? { decision: 'allow', by: 'human' }
        : { decision: 'deny', by: 'human', reason: 'denied by a human reviewer' };
    },
  };
}

/** Asks a reviewing model through the host's callback: true allows, false denies. */
function modelReview(review: (request: PermissionRequest) => Promise<boolean>): PermissionPolicy {
  return {
    async review(request) {
      return (await review(request))
        ? { decision: 'allow', by: 'model' }
        : { decision: 'deny', by: 'model', reason: 'denied by the reviewing model' };
    },
  };
}

const DEFAULT_DENY: PermissionDecision = Object.freeze({
  decision: 'deny',
  by: 'policy',
  reason: 'no policy allowed this call (default deny)',
});

/** The first decision that is not `abstain` (allow, deny or defer) wins; all abstaining denies. */
function chain(...list: PermissionPolicy[]): PermissionPolicy {
  const all = list.map(atOnceOf);
  if (all.every((a): a is AtOnce => a !== undefined)) {
    const decide = (request: PermissionRequest) => {
      for (const a of all) {
        const verdict = a.decide(request);
        if (verdict.decision !== 'abstain') return verdict;
      }
      return DEFAULT_DENY;
    };
    return atOnce(
      decide,
      all.some((a) => a.readsArguments),
    );
  }
  return {
    async review(request, context) {
      for (const policy of list) {
        const verdict = await policy.review(request, context);
        if (verdict.decision !== 'abstain') return verdict;
      }
      return DEFAULT_DENY;
    },
  };
}

/** Denies everything (the default when a host gives no policy). */
function denyAll(): PermissionPolicy {
  return { review: async () => ({ decision: 'deny', by: 'policy', reason: 'no policy allows this call' }) };
}

/** The built-in policies. */
export const policies = { autoAllow, deny, approval, human, modelReview, chain, denyAll };
