/**
 * Server requests on a shared connection (elicitation, sampling): they go to
 * the one run that has calls in flight on it; when none or several do, the
 * request is declined with an error to the server — never delivered to
 * another run's user. And the auth identity of a key: the provider object.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import type { ClientHandlers } from '../mcp/requests/client-handlers.js';

/** One lease's view of a shared connection: its handlers, and whether it has calls in flight there. */
export interface ServerRequestRouter {
  handlers: ClientHandlers;
  busy(): boolean;
}

// JSON-RPC "invalid request": the server asked while no single run could answer for it.
const DECLINED = -32600;

/** A kind of server request a pooled connection routes. */
export type RoutedRequest = 'elicitation' | 'sampling';

// The one busy lease that answers `kind`, or a declining error for the server (and a word to the audit).
function busyRouter(
  routers: ReadonlySet<ServerRequestRouter>,
  kind: RoutedRequest,
  onDecline: (kind: RoutedRequest) => void,
): ClientHandlers {
  const busy = [...routers].filter((r) => r.busy());
  const only = busy.length === 1 ? busy[0] : undefined;
  if (only?.handlers[kind] === undefined) {
    const why =
      busy.length === 0
        ? 'no call is in flight on this connection'
        : busy.length > 1
          ? 'calls of several runs are in flight on this shared connection'
          : 'the run whose call is in flight does not answer it';
    onDecline(kind);
    throw new ProtocolError(DECLINED, `the client declines this ${kind} request: ${why}, so no single user can answer it`);
  }
  return only.handlers;
}

/** Handlers for a pooled connection that route each request to the one busy lease; declared as `declared` declares them. */
export function routedHandlers(
  routers: ReadonlySet<ServerRequestRouter>,
  declared: ClientHandlers,
  onDecline: (kind: RoutedRequest) => void,
): ClientHandlers {
  const handlers: ClientHandlers = {};
  if (declared.elicitationModes) handlers.elicitationModes = declared.elicitationModes;
  if (declared.samplingTools) handlers.samplingTools = true;
  if (declared.elicitation)
    handlers.elicitation = (request, context) => busyRouter(routers, 'elicitation', onDecline).elicitation!(request, context);
  if (declared.sampling) handlers.sampling = (request, context) => busyRouter(routers, 'sampling', onDecline).sampling!(request, context);
  return handlers;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 1;

/** A stable id per auth provider object ('none' without one): two runs share a connection only with the same provider. */
export function identityOf(auth: object | undefined): string {
  if (auth === undefined) return 'none';
  let id = identities.get(auth);
  if (id === undefined) identities.set(auth, (id = nextIdentity++));
  return `auth-${id}`;
}
