/**
 * ConnectSettings: how agt-mcp connects to MCP servers, one type shared by
 * `connectMcp`, `McpProber`, `NativeRun` (and the pool to come): the time
 * limits (the call timeout among them), authorization in either of its two
 * forms, placeholder values, and the handlers of server-initiated requests.
 */
import type { ResourceRef } from '../resources/types.js';
import type { VariableSources } from '../resources/variables.js';
import type { McpAuth } from './auth.js';
import type { CreateMessageResult, ElicitationRequest, ElicitResult, SamplingRequest, ServerRequestContext } from './client-handlers.js';
import type { Timeouts } from './timeouts.js';

/** Authorization for remote servers: one provider for every server, or one per stored server (undefined: none). */
export type AuthSetting = McpAuth | ((server: ResourceRef) => McpAuth | undefined);

/** The settings of connecting; `C` is what the server-request handlers are told (a run tells more). */
export interface ConnectSettings<C extends ServerRequestContext = ServerRequestContext> {
  /** Time limits of each phase, and of each call (`callMs`); defaults: DEFAULT_TIMEOUTS. */
  timeouts?: Partial<Timeouts>;
  /** An OAuthClientProvider (SDK) or `{ bearer }`, or a function of the stored server that gives one. */
  auth?: AuthSetting;
  /** Values for the configs' placeholders: the environment (default process.env) and declared inputs. */
  variables?: VariableSources;
  /** Answers servers' elicitation requests (form mode); without it, elicitation is not declared. */
  elicitation?(request: ElicitationRequest, context: C): Promise<ElicitResult>;
  /** Answers servers' sampling requests; without it, sampling is not declared. */
  sampling?(request: SamplingRequest, context: C): Promise<CreateMessageResult>;
}

/** The authorization for one server: the provider itself, or what the function gives for `server`. */
export function authFor(auth: AuthSetting | undefined, server: ResourceRef): McpAuth | undefined {
  return typeof auth === 'function' ? auth(server) : auth;
}
