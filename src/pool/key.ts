/**
 * A pooled connection's key: everything that makes two connections different
 * (the isolation boundary of McpPool), with values only as a hash — and the
 * connect settings a lease uses (the run's own auth and variables, else the
 * pool's).
 */
import os from 'node:os';
import type { ConnectOptions } from '../mcp/connect.js';
import { authFor, type ConnectSettings } from '../mcp/settings.js';
import { resolveServerConfig } from '../resources/variables.js';
import { canonicalHash } from '../schema/canonical.js';
import type { LeaseRequest } from './types.js';
import { identityOf } from './routing.js';

/** The run's auth and variables for this mount, else the pool's. */
export function connectDefaults(
  own: ConnectOptions,
  pool: Pick<ConnectSettings, 'auth' | 'variables'>,
  reference: string,
): Pick<ConnectOptions, 'auth' | 'variables'> {
  const auth = authFor(own.auth ?? pool.auth, { kind: 'mcp', reference });
  const variables = own.variables ?? pool.variables;
  return { ...(auth === undefined ? {} : { auth }), ...(variables === undefined ? {} : { variables }) };
}

/** Everything that makes two connections different (the isolation boundary); values only as a hash. */
export function keyOf(request: LeaseRequest, connect: ConnectOptions): string {
  const server = Object.values(request.document.mcpServers ?? {})[0] as Record<string, unknown> | undefined;
  const { config } = resolveServerConfig(server ?? {}, connect.variables ?? {}, os.homedir());
  const launch = canonicalHash({ config, inputs: request.document.inputs ?? [] });
  const handles = [request.connect.elicitation ? 'elicitation' : '', request.connect.sampling ? 'sampling' : ''].join(',');
  const own = server?.shared === false ? request.owner : ''; // "shared": false — one connection per run, even within a scope
  const parts = [request.scope, own, request.reference, String(request.revision), launch, identityOf(connect.auth), handles];
  return canonicalHash(parts).slice(0, 32);
}
