/**
 * Who a call is and where its audit events go: the identity the permission
 * request and every audit event of a call name, and the one way an event is
 * recorded (a failing sink never breaks a run).
 */
import type { CallContext } from './call-context.js';
import type { Route } from '../assembly/snapshot.js';
import type { CallIdentity } from '../types.js';
import type { AuditEvent, AuditSink } from '../audit/audit-events.js';

/** Who and what: the fields the permission request and the audit event both name (a fresh object each time). */
export function callIdentity(ctx: CallContext, callId: string, route: Route): CallIdentity {
  const { runId, agent, batchId, origin } = ctx;
  const identity: CallIdentity =
    route.kind === 'mcp'
      ? { runId, agent, batchId, callId, tool: route.name, kind: route.kind, mount: route.mount, remoteTool: route.remoteTool }
      : { runId, agent, batchId, callId, tool: route.name, kind: route.kind };
  if (origin !== undefined) {
    identity.origin = 'app';
    identity.from = origin.from;
  }
  return identity;
}

/** Records an audit event; a failing sink never breaks a run. */
export async function recordSafely(sink: AuditSink | undefined, event: AuditEvent): Promise<void> {
  try {
    await sink?.record(event);
  } catch {
    // audit sinks must not break runs
  }
}
