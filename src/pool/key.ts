/**
 * A pooled connection's key: everything that makes two connections different
 * (the isolation boundary of McpPool), with values only as a hash — and the
 * connect settings a lease uses (the run's own auth and variables, else the
 * pool's).
 */
import os from 'node:os';
import type { ConnectOptions } from '../mcp/connect.js';
import { authFor, type ConnectSettings } from '../mcp/settings.js';
import { defined } from '../json.js';
import { resolveServerConfig } from '../resources/variables.js';
import { canonicalHash } from '../schema/canonical.js';
import type { LeaseRequest } from './types.js';
import { identityOf } from './routing.js';

type PoolDefaulted = 'auth' | 'variables' | 'maxMessageBytes' | 'pingIntervalMs' | 'roots' | 'tasks' | 'verdicts' | 'legacyVerdictMs';

/** The run's auth, variables, message limit, ping interval and era verdicts for this mount, else the pool's; the roots are the pool's (shared connections answer alike). */
export function connectDefaults(
  own: ConnectOptions,
  pool: Pick<ConnectSettings, PoolDefaulted>,
  reference: string,
): Pick<ConnectOptions, PoolDefaulted> {
  const auth = authFor(own.auth ?? pool.auth, { kind: 'mcp', reference });
  return {
    ...defined({
      auth,
      variables: own.variables ?? pool.variables,
      maxMessageBytes: own.maxMessageBytes ?? pool.maxMessageBytes,
      pingIntervalMs: own.pingIntervalMs ?? pool.pingIntervalMs,
      roots: pool.roots,
      tasks: own.tasks ?? pool.tasks,
      verdicts: own.verdicts ?? pool.verdicts, // era verdicts (E2): the run's store, else the pool's
      legacyVerdictMs: own.legacyVerdictMs ?? pool.legacyVerdictMs,
    }),
  };
}

// The server a request starts, as launched: its resolved config and inputs (values only as a hash).
function launchOf(request: LeaseRequest, connect: ConnectOptions): { server: Record<string, unknown> | undefined; launch: string } {
  const server = Object.values(request.document.mcpServers ?? {})[0] as Record<string, unknown> | undefined;
  const { config } = resolveServerConfig(server ?? {}, connect.variables ?? {}, os.homedir());
  return { server, launch: canonicalHash({ config, inputs: request.document.inputs ?? [] }) };
}

/** The server itself, whatever the scope, owner or credentials: what a `public` list is shared by (E3). */
export function serverKeyOf(request: LeaseRequest, connect: ConnectOptions): string {
  return canonicalHash([request.reference, String(request.revision), launchOf(request, connect).launch]).slice(0, 32);
}

/** Everything that makes two connections different (the isolation boundary); values only as a hash. */
export function keyOf(request: LeaseRequest, connect: ConnectOptions): string {
  const { server, launch } = launchOf(request, connect);
  const { elicitation, elicitationModes, sampling, samplingTools } = request.connect;
  // What the connection declares: runs share only a connection that declares what their handlers answer.
  const handles = [
    elicitation ? `elicitation:${(elicitationModes ?? ['form']).join('+')}` : '',
    sampling ? `sampling:${samplingTools === true}` : '',
  ].join(',');
  const own = server?.shared === false ? request.owner : ''; // "shared": false — one connection per run, even within a scope
  const limit = `${connect.maxMessageBytes ?? ''}:${connect.tasks === true}`; // a connection's message limit and task use are its own
  const parts = [request.scope, own, request.reference, String(request.revision), launch, identityOf(connect.auth), handles, limit];
  return canonicalHash(parts).slice(0, 32);
}
