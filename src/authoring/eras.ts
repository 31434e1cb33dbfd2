/**
 * Checks in both protocol eras (C3, E1): runContract and checkServer run their
 * cases once per era, each on a connection pinned to it. Which eras: those the
 * caller names, else the one the config pins, else both. An era the server
 * does not speak is reported unavailable with the reason, not failed: most
 * servers today speak only 2025.
 */
import { AgtError, isAgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { connectMcp, type ConnectOptions } from '../mcp/connect.js';
import type { McpConnection } from '../mcp/connection.js';
import { MODERN_PROTOCOL_VERSION, type ProtocolEra } from '../mcp/settings/era.js';
import type { McpDocument, McpProtocolChoice, McpServerConfig } from '../config/mcp-config.js';

/** Both eras, in the order checks run them. */
export const BOTH_ERAS: readonly ProtocolEra[] = Object.freeze(['legacy', 'modern']);

/**
 * Whether a kit service serves the 2025 era, from its `eras` option: both (the default), or `['modern']` only —
 * then a 2025 opening (`initialize`) is refused as the SDK's serving entries refuse it (the unsupported-version
 * error naming 2026-07-28). Serving only the 2025 era is not offered: a 2025 client never opens a modern request.
 */
export function servesLegacy(given: readonly ServedEra[] | undefined, entry: string): boolean {
  if (given === undefined) return true;
  const eras: (ProtocolEra | undefined)[] = Array.isArray(given) ? given.map((e) => SERVED_ERAS.get(e)) : [];
  if (eras.length === 0 || eras.includes(undefined) || !eras.includes('modern'))
    throw new AgtError(
      'invalid_input',
      `${entry}: eras must be ["2025-11-25", "2026-07-28"] (the default) or ["2026-07-28"] (2026-07-28 only); "legacy" and "modern" say the same`,
      { details: { field: 'eras' } },
    );
  return eras.includes('legacy');
}

/** An era a kit service serves, by its protocol version (as API.md names them) or by its era name. */
export type ServedEra = ProtocolEra | '2025-11-25' | typeof MODERN_PROTOCOL_VERSION;

const SERVED_ERAS: ReadonlyMap<unknown, ProtocolEra> = new Map<ServedEra, ProtocolEra>([
  ['legacy', 'legacy'],
  ['modern', 'modern'],
  ['2025-11-25', 'legacy'],
  [MODERN_PROTOCOL_VERSION, 'modern'],
]);

/** The eras a check runs in: `given`, else the config's pin, else both. */
export function erasOf(target: McpDocument | McpServerConfig, given?: readonly ProtocolEra[]): ProtocolEra[] {
  if (given !== undefined) return [...new Set(given)];
  const choices = configsOf(target).map((config) => config.protocol);
  if (choices.length > 0 && choices.every((c) => c === 'legacy')) return ['legacy'];
  if (choices.length > 0 && choices.every((c) => c === MODERN_PROTOCOL_VERSION)) return ['modern'];
  return [...BOTH_ERAS];
}

/** The target with its server pinned to `era`. */
export function pinnedTo(target: McpDocument | McpServerConfig, era: ProtocolEra): McpDocument | McpServerConfig {
  const protocol: McpProtocolChoice = era === 'legacy' ? 'legacy' : MODERN_PROTOCOL_VERSION;
  if (!isPlainObject(target) || !('mcpServers' in target)) return { ...target, protocol } as McpServerConfig;
  const servers = isPlainObject(target.mcpServers) ? target.mcpServers : {};
  const pinned = Object.fromEntries(Object.entries(servers).map(([name, c]) => [name, isPlainObject(c) ? { ...c, protocol } : c]));
  return { ...target, mcpServers: pinned } as McpDocument;
}

/** A connection pinned to `era`, or why the server does not speak it (a protocol mismatch); other failures throw. */
export async function connectInEra(
  target: McpDocument | McpServerConfig,
  era: ProtocolEra,
  options: ConnectOptions,
): Promise<McpConnection | { unavailable: string }> {
  try {
    return await connectMcp(pinnedTo(target, era), options);
  } catch (error) {
    if (isAgtError(error) && error.code === 'protocol_mismatch') {
      const offered = error.details?.offered;
      const named = Array.isArray(offered) ? offered.map((v) => (v === 'legacy' ? 'the 2025 era' : String(v))).join(', ') : '';
      return { unavailable: `the server does not speak MCP ${eraLabel(era)}${named ? `; it offers ${named}` : ''}` };
    }
    throw error;
  }
}

/** What an era is called in reports: the 2025 era, or the revision. */
export function eraLabel(era: ProtocolEra): string {
  return era === 'legacy' ? '2025' : MODERN_PROTOCOL_VERSION;
}

function configsOf(target: McpDocument | McpServerConfig): { protocol?: unknown }[] {
  if (!isPlainObject(target)) return [];
  if (!('mcpServers' in target)) return [target];
  return isPlainObject(target.mcpServers) ? Object.values(target.mcpServers).filter(isPlainObject) : [];
}
