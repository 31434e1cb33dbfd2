/**
 * A pooled connection's key: everything that makes two connections different
 * (the isolation boundary of McpPool), with values only as a hash — and the
 * connect settings a lease uses (the run's own values over the pool's).
 */
import os from 'node:os';
import type { ConnectOptions } from '../mcp/connect.js';
import { resolveConnectSettings, type ResolvedConnectSettings, settingsOf } from '../mcp/settings/resolved-settings.js';
import { authFor } from '../mcp/settings/settings.js';
import { resolveServerConfig } from '../config/variables.js';
import { canonicalHash } from '../schema/canonical.js';
import type { LeaseRequest } from './types.js';
import { identityOf } from './routing.js';
import { sandboxHash } from '../mcp/process/sandbox/fingerprint.js';

/**
 * The settings of a lease: the run's own values (auth, variables, timeouts,
 * message bound, keepalive, tasks, verdicts, handlers) over the pool's, but
 * the roots: the pool's (shared connections answer alike).
 */
export function leaseSettings(
  pool: ResolvedConnectSettings,
  connect: ConnectOptions,
  cache: WeakMap<ResolvedConnectSettings, ResolvedConnectSettings>,
): ResolvedConnectSettings {
  const run = settingsOf(connect); // a run's are resolved once per mount, so layered once too
  let layered = cache.get(run);
  if (layered === undefined) {
    const { roots: _runRoots, ...own } = run.given;
    cache.set(run, (layered = resolveConnectSettings(own, pool)));
  }
  return layered;
}

// The server a request starts, as launched: its resolved config and inputs (values only as a hash).
function launchOf(
  request: LeaseRequest,
  settings: ResolvedConnectSettings,
): { server: Record<string, unknown> | undefined; launch: string } {
  const server = Object.values(request.document.mcpServers ?? {})[0] as Record<string, unknown> | undefined;
  const { config } = resolveServerConfig(server ?? {}, settings.variables, os.homedir());
  return { server, launch: canonicalHash({ config, inputs: request.document.inputs ?? [] }) };
}

/** The server itself, whatever the scope, owner or credentials: a list change of any of its connections drops its public lists. */
export function serverKeyOf(request: LeaseRequest, settings: ResolvedConnectSettings): string {
  return canonicalHash([request.reference, String(request.revision), launchOf(request, settings).launch]).slice(0, 32);
}

/**
 * What a `public` list is shared by (E3): the server as launched and, unless the pool opts in to `'any'`, the
 * credentials its connection carries — runs that bring their own auth never see a list fetched with another's.
 */
export function publicListKeyOf(
  server: string,
  request: LeaseRequest,
  settings: ResolvedConnectSettings,
  sharing: 'same-credentials' | 'any',
): string {
  if (sharing === 'any') return server;
  return `${server}:${identityOf(authFor(settings.auth, { kind: 'mcp', reference: request.reference }))}`;
}

/** Everything that makes two connections different (the isolation boundary); values only as a hash. */
export function keyOf(request: LeaseRequest, settings: ResolvedConnectSettings): string {
  const { server, launch } = launchOf(request, settings);
  const { elicitation, elicitationModes, sampling, samplingTools, deferred } = settings.handlers;
  // What the connection declares and what it defers: runs share only a connection that declares what their handlers
  // answer and leaves pending what they leave pending (E7: a deferring run and an answering one never share).
  const handles = [
    elicitation ? `elicitation:${(elicitationModes ?? ['form']).join('+')}` : '',
    sampling ? `sampling:${samplingTools === true}` : '',
    deferred?.length ? `deferred:${[...deferred].sort().join('+')}` : '',
    settings.apps ? 'apps' : '', // a server may list other tools to a client that renders apps
  ].join(',');
  const own = server?.shared === false ? request.owner : ''; // "shared": false — one connection per run, even within a scope
  const limit = `${settings.maxMessageBytes}:${settings.tasks}`; // a connection's message limit and task use are its own
  const auth = authFor(settings.auth, { kind: 'mcp', reference: request.reference });
  const parts = [request.scope, own, request.reference, String(request.revision), launch, identityOf(auth), handles, limit];
  const sandbox = sandboxHash(server); // P5: the resolved sandbox; a key without one stays as it was
  return canonicalHash(sandbox === undefined ? parts : [...parts, `sandbox:${sandbox}`]).slice(0, 32);
}
