/** The keys McpPool's options know: its own, its ConnectSettings (no server-request handlers: those are each run's), `breaker`'s. */
import type { KnownKeys } from '../config/unknown-keys.js';
import { checkedSettingsOf, type ResolvedConnectSettings } from '../mcp/settings/resolved-settings.js';
import { type ConnectSettings, knownWithSettings } from '../mcp/settings/settings.js';
import type { McpPoolOptions } from './types.js';

/** Every key of McpPoolOptions beyond its ConnectSettings, once: the compiler fails here when an option is not listed. */
const POOL_KEYS = {
  service: true,
  registry: true,
  idleMs: true,
  maxConnections: true,
  breaker: true,
  audit: true,
  publicLists: true,
  clock: true,
} as const satisfies Record<Exclude<keyof McpPoolOptions, keyof ConnectSettings>, true>;

const BREAKER_KEYS = { failures: true, coolDownMs: true, backoffMs: true } as const satisfies Record<
  keyof NonNullable<McpPoolOptions['breaker']>,
  true
>;

/** The keys McpPoolOptions knows, and those of its option objects (`breaker.coolDownMS` is unknown). */
export const POOL_OPTIONS_KNOWN: KnownKeys = knownWithSettings(Object.keys(POOL_KEYS), {
  without: ['elicitation', 'sampling', 'elicitationModes', 'samplingTools'],
  nested: { breaker: { keys: Object.keys(BREAKER_KEYS) } },
});

/**
 * The pool's connect settings, resolved once: every key of `options` checked first (an unknown one is invalid_input
 * naming the closest; `strict: false`: a warning every pooled connection carries).
 */
export function poolSettings(options: McpPoolOptions): ResolvedConnectSettings {
  return checkedSettingsOf(options, POOL_OPTIONS_KNOWN, 'McpPool options');
}
