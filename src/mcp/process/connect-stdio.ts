/**
 * The stdio side of connectMcp: launch the server (R3–R6), negotiate its era
 * on our own process-group transport (E1: a server that exits on the era
 * probe is started once more, on the 2025 era), and say what went wrong in
 * stable codes (exited_early, handshake_timeout, protocol_error …).
 */
import path from 'node:path';
import { type Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { AgtError, isAgtError, maskError } from '../../errors.js';
import { defined } from '../../json.js';
import type { NormalisedStdioConfig } from '../../config/mcp-config.js';
import { secretArgIndexes, secretArgValue, type SecretMasker, secretMasker } from '../../config/secrets.js';
import type { VariableSources } from '../../config/variables.js';
import { eraMismatch, isEraFailure, MODERN_PROTOCOL_VERSION, type priorOf } from '../settings/era.js';
import { toLaunchSpec } from './launch.js';
import { sandboxLaunch } from './sandbox/launch.js';
import { oversizedAnswer } from '../oversized.js';
import { hostDefaultEnvironment } from './platform/index.js';
import { withStderr } from '../requests/request-error.js';
import { guardRequestState } from '../requests/request-state.js';
import { isRequestTimeout } from '../settings/timeouts.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';
import type { Timeouts } from '../settings/timeouts.js';

// What connectStdio returns when the server exited on the era probe without answering it.
export const EXITED_ON_PROBE = Symbol('exited on the era probe');

/** Connects `client` to a stdio server it launches; EXITED_ON_PROBE when it exited on the era probe unanswered. */
export async function connectStdio(
  client: Client,
  config: NormalisedStdioConfig,
  timeouts: Timeouts,
  options: { variables?: VariableSources; maxMessageBytes?: number; onPhase?(phase: 'starting' | 'handshake'): void },
  how: { collected: Set<string>; masker: SecretMasker; prior: ReturnType<typeof priorOf> },
) {
  const { collected, masker, prior } = how;
  const spec = await toLaunchSpec(config, options.variables, collected); // R3–R6: invalid_config / spawn_failed before anything runs
  // The values of the config's own env and envFile (as the server gets them) and resolved placeholders never show in the stderr tail.
  const own = Object.keys(spec.env).filter((k) => !DEFAULT_ENV_KEYS.has(k) || (config.env ?? {})[k] !== undefined);
  const ownValues = [
    ...own.map((k) => spec.env[k] ?? ''),
    ...collected,
    ...secretArgIndexes(spec.args).map((i) => secretArgValue(spec.args[i] as string)),
  ];
  for (const value of ownValues) masker.add(value);
  const secrets = secretMasker(ownValues).secrets; // the stderr tail masks by the same rule as everything else
  // P5: a config that asks for a sandbox starts inside one or not at all (invalid_config / sandbox_unavailable).
  const sandboxed = await sandboxLaunch(config, spec);
  const transport = new ProcessGroupStdioTransport(sandboxed?.spec ?? spec, {
    spawnMs: timeouts.spawnMs,
    closeGraceMs: timeouts.closeGraceMs,
    secrets,
    ...defined({ sandbox: sandboxed?.lease }),
    ...defined({ maxMessageBytes: options.maxMessageBytes }),
  });
  const started = performance.now();
  options.onPhase?.('starting');
  transport.onSpawned = () => options.onPhase?.('handshake');
  const deadline = handshakeDeadline(timeouts.handshakeMs); // the probe and initialize together
  let connectError: unknown; // the SDK's own reason, which may come after the process exit it caused
  try {
    await Promise.race([
      client.connect(guardRequestState(transport), { timeout: timeouts.handshakeMs, ...defined({ prior }) }).catch((error: unknown) => {
        connectError = error;
        throw error;
      }),
      transport.failed.then(() => Promise.reject(stdioFailure(transport, timeouts))),
      deadline.expired,
    ]);
  } catch (error) {
    const exitedOnProbe =
      prior === undefined && transport.exit !== undefined && transport.firstMethod === 'server/discover' && transport.received === 0;
    // Classify before closing: the kill that close() sends must not read as an early exit.
    // A pinned probe the server never answered (a slow start) is a timeout, not a server that lacks the era.
    const pinnedSilent =
      config.protocol === MODERN_PROTOCOL_VERSION &&
      (isRequestTimeout(error) || isEraFailure(error)) &&
      transport.received === 0 &&
      transport.exit === undefined &&
      transport.fatal === undefined;
    let mapped = pinnedSilent
      ? handshakeError(timedOut(timeouts.handshakeMs), transport, timeouts, config.command, 'server/discover')
      : isAgtError(error)
        ? withStderr(error, transport)
        : handshakeError(error, transport, timeouts, config.command);
    await transport.close();
    await new Promise((resolve) => setImmediate(resolve)); // the SDK settles connect once the transport closed
    if (!pinnedSilent) mapped = eraMismatch(connectError ?? error, config.protocol, transport.firstError) ?? mapped;
    if (exitedOnProbe && config.protocol !== MODERN_PROTOCOL_VERSION) return EXITED_ON_PROBE;
    throw maskError(mapped, masker.text);
  } finally {
    deadline.clear();
  }
  const initializeMs = performance.now() - started - transport.spawnMs;
  const warnings =
    transport.garbageLines > 0 ? [`skipped ${transport.garbageLines} non-JSON line(s) on stdout; servers should log to stderr`] : [];
  return { client, transport, stdio: transport, timings: { spawnMs: transport.spawnMs, initializeMs }, warnings };
}

/**
 * The discover result of a modern server whose answer to the era probe came after the probe's share of the
 * handshake (a slow start: the SDK took the silence for a 2025 server and initialized): undefined otherwise.
 * The connection it made speaks 2025; the caller connects again on the 2026-07-28 era (E1).
 */
export function lateModernAnswer(
  stdio: { client: Client; transport: ProcessGroupStdioTransport },
  prior: ReturnType<typeof priorOf>,
): Record<string, unknown> | undefined {
  const answer = stdio.transport.discoverResult;
  if (prior !== undefined || answer === undefined || stdio.client.getProtocolEra() !== 'legacy') return undefined;
  const versions = answer['supportedVersions'];
  return Array.isArray(versions) && versions.includes(MODERN_PROTOCOL_VERSION) ? answer : undefined;
}

// The SDK's request timeout for a handshake of `ms`.
function timedOut(ms: number): SdkError {
  return new SdkError(SdkErrorCode.RequestTimeout, `handshake timed out after ${ms} ms`);
}

// Rejects like the SDK's request timeout once `ms` have passed; cleared when the handshake settles.
function handshakeDeadline(ms: number): { expired: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut(ms)), ms);
  });
  expired.catch(() => undefined); // raced; never unhandled
  return { expired, clear: () => clearTimeout(timer) };
}

// The host variables every server gets (launch.ts); not secrets of the config.
const DEFAULT_ENV_KEYS = new Set(Object.keys(hostDefaultEnvironment()));

function stdioFailure(transport: ProcessGroupStdioTransport, timeouts: Timeouts): AgtError {
  if (transport.fatal !== undefined) return transport.fatal;
  if (transport.exit !== undefined) {
    const { code, signal } = transport.exit;
    return new AgtError('exited_early', `the server exited before the handshake finished (${signal ?? `exit code ${code}`})`, {
      details: { exitCode: code, signal },
    });
  }
  return new AgtError('connection_closed', 'the connection closed during the handshake', { details: { timeoutMs: timeouts.handshakeMs } });
}

// Package runners download before the server starts: the first start of a package takes long.
const RUNNERS = new Set(['npx', 'uvx', 'bunx', 'pnpm', 'yarn', 'pipx', 'docker', 'uv']);

function handshakeError(
  error: unknown,
  transport: ProcessGroupStdioTransport,
  timeouts: Timeouts,
  command: string,
  phase: 'initialize' | 'server/discover' = 'initialize',
): AgtError {
  if (transport.fatal !== undefined || transport.exit !== undefined) return withStderr(stdioFailure(transport, timeouts), transport);
  const timedOut = isRequestTimeout(error);
  if (timedOut && transport.garbageLines > 0) {
    return withStderr(
      new AgtError(
        'protocol_error',
        `the server wrote ${transport.garbageLines} non-JSON line(s) on stdout and never answered initialize; MCP servers must keep stdout for JSON-RPC and log to stderr`,
        {
          details: { reason: 'non_json_output', garbageLines: transport.garbageLines },
        },
      ),
      transport,
    );
  }
  if (timedOut) {
    const runner = path.basename(command);
    const hint = RUNNERS.has(runner)
      ? `; ${runner} may still be downloading the package on a cold start: give it more time (agt mcp probe --timeout 60000, or "handshakeTimeoutMs" in the config)`
      : '';
    return withStderr(
      new AgtError('handshake_timeout', `the server did not answer ${phase} within ${timeouts.handshakeMs} ms${hint}`, {
        details: { phase, timeoutMs: timeouts.handshakeMs },
      }),
      transport,
    );
  }
  const oversized = oversizedAnswer(error, 'initialize');
  if (oversized !== undefined) return withStderr(oversized, transport);
  const text = error instanceof Error ? error.message : String(error);
  return withStderr(
    new AgtError(
      'protocol_error',
      /protocol version/i.test(text)
        ? 'the server answered with a protocol version this client does not support'
        : 'the server answered initialize with something that is not a valid MCP response',
      {
        details: { reason: /protocol version/i.test(text) ? 'unsupported_protocol_version' : 'invalid_initialize' },
        cause: error,
      },
    ),
    transport,
  );
}
