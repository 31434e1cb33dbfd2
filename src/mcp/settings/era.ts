/**
 * Protocol eras (E1, E2): which MCP handshake a connection performs, on the
 * SDK's own negotiation (`versionNegotiation`, `prior`). `auto` probes with
 * `server/discover` and falls back to the 2025 `initialize`; a pin never falls
 * back. A verdict learned once (the era, its version, the discover result)
 * lets later connections skip the probe.
 */
import type { Client, DiscoverResult, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import type { McpProtocolChoice } from '../../config/mcp-config.js';
import { serverWords } from '../server-words.js';

/** The two eras of MCP: `legacy` is 2024-10-07 … 2025-11-25 (initialize); `modern` is 2026-07-28 on (server/discover). */
export type ProtocolEra = 'legacy' | 'modern';

// MCP 2026-07-28's error code for a protocol version the other side does not speak.
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The modern revision a config may pin. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** What a connection learned of a server's era: enough for the next connection to skip discovery (E2). */
export type EraVerdict =
  | { era: 'modern'; protocolVersion: string; discover: Record<string, unknown>; learnedAt: string }
  | { era: 'legacy'; protocolVersion: string; learnedAt: string };

/** The SDK's negotiation options for a config's `protocol` (default `auto`). */
export function versionNegotiation(choice: McpProtocolChoice | undefined, probeTimeoutMs: number): VersionNegotiationOptions {
  if (choice === 'legacy') return { mode: 'legacy' };
  const probe = { timeoutMs: probeTimeoutMs, maxRetries: 0 };
  return choice === MODERN_PROTOCOL_VERSION ? { mode: { pin: MODERN_PROTOCOL_VERSION }, probe } : { mode: 'auto', probe };
}

/** The SDK's `prior` for a modern server, from its discover result as it came (remembered, or answered late). */
export function modernPrior(discover: Record<string, unknown>): { kind: 'modern'; discover: DiscoverResult } {
  // The SDK types the prior's discover as its DiscoverResult; ours is kept as the server sent it, and the SDK checks it against its schema (validatePrior) before use.
  return { kind: 'modern', discover: discover as DiscoverResult };
}

/** The SDK's `prior` for a remembered verdict, when it fits the config's choice (a pin never takes a legacy verdict). */
export function priorOf(
  verdict: EraVerdict | undefined,
  choice: McpProtocolChoice | undefined,
): { kind: 'modern'; discover: DiscoverResult } | { kind: 'legacy' } | undefined {
  if (verdict === undefined || choice === 'legacy') return undefined;
  if (verdict.era === 'modern') return modernPrior(verdict.discover);
  return choice === MODERN_PROTOCOL_VERSION ? undefined : { kind: 'legacy' };
}

/**
 * What a connected client negotiated, as a verdict to remember. The discover
 * result is server data: `masked` hides the config's secrets in it here, where
 * it is read, so no copy of it (the connection's verdict, a probe report, a
 * verdict store, the CLI's notes) holds one.
 */
export function verdictOf(client: Client, transportVersion: string | undefined, masked: <T>(value: T) => T): EraVerdict {
  const learnedAt = new Date().toISOString();
  const discover = client.getDiscoverResult();
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? transportVersion ?? '';
  if (client.getProtocolEra() === 'modern' && discover !== undefined) {
    return { era: 'modern', protocolVersion, discover: masked({ ...discover }), learnedAt };
  }
  return { era: 'legacy', protocolVersion, learnedAt };
}

/** True when the SDK's era negotiation itself failed (a pin not offered, a probe that ended without a verdict). */
export function isEraFailure(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
}

/**
 * The protocol_mismatch error of a pinned era the server does not offer, or
 * undefined when `error` is not one. `offered`: the versions the server named
 * (a -32022 answer's `supported`), else the era it showed. `refusal`: the
 * error the server answered the probe with, when the transport saw one.
 */
export function eraMismatch(
  error: unknown,
  choice: McpProtocolChoice | undefined,
  refusal?: { code: number; message: string },
): AgtError | undefined {
  const unsupported = (error as { code?: unknown } | null)?.code === UNSUPPORTED_PROTOCOL_VERSION;
  if (choice === MODERN_PROTOCOL_VERSION && (unsupported || (isEraFailure(error) && !/closed/.test((error as Error).message)))) {
    const offered = supportedOf(error);
    const answered = refusal === undefined ? 'without it' : `with error ${refusal.code} (${refusal.message})`;
    const what =
      offered === undefined ? `it answered server/discover ${answered}: a 2025-era server` : `it offers ${offered.join(', ') || 'nothing'}`;
    return new AgtError(
      'protocol_mismatch',
      `the server does not offer MCP ${MODERN_PROTOCOL_VERSION} (${what}); set "protocol": "auto" in its config to speak the protocol it has`,
      { details: { pinned: MODERN_PROTOCOL_VERSION, offered: offered ?? ['legacy'] } },
    );
  }
  if (choice !== 'legacy') return undefined;
  const supported = supportedOf(error);
  if (supported === undefined || supported.length === 0 || !supported.every((v) => v >= MODERN_PROTOCOL_VERSION)) return undefined;
  return new AgtError(
    'protocol_mismatch',
    `the server speaks only MCP ${supported.join(', ')} and refused the 2025 initialize; set "protocol": "auto" (or "${MODERN_PROTOCOL_VERSION}") in its config`,
    { details: { pinned: 'legacy', offered: supported } },
  );
}

// The protocol versions an error says the server supports (UnsupportedProtocolVersion's data): bounded, each in serverWords
// (escaped: a server's version string never brings a control character or a line break into our message).
function supportedOf(error: unknown): string[] | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const data = (e as { data?: unknown }).data;
    const supported = isPlainObject(data) ? data.supported : undefined;
    if (Array.isArray(supported))
      return supported
        .slice(0, 16)
        .filter((v): v is string => typeof v === 'string')
        .map((v) => serverWords(v.slice(0, 32)));
  }
  return undefined;
}
