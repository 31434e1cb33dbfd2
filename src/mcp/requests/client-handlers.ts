/**
 * Server-initiated requests (elicitation, sampling, roots) and the client
 * capabilities that follow from them. A capability is declared exactly when a
 * handler for it is given, so a server never asks for what the host cannot
 * answer; probes and runs built from the same handlers declare the same
 * capabilities (servers may list different tools by declared capabilities).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { Client, jsonSchemaValidator } from '@modelcontextprotocol/client';
import type { ToolSchemaRegistry } from '../../schema/registry.js';

/** A server's elicitation request: form mode (a message and the schema of the answer) or URL mode. */
export type ElicitationRequest =
  | { mode?: 'form'; message: string; requestedSchema: Record<string, unknown>; [key: string]: unknown }
  | { mode: 'url'; message: string; url: string; elicitationId: string; [key: string]: unknown };

/** The user's answer to an elicitation. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  /** With accept: the answer, valid for the requested schema. */
  content?: Record<string, string | number | boolean | string[]>;
  [key: string]: unknown;
}

/** A server's sampling request: messages for the host's model. */
export interface SamplingRequest {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}

/** The host model's answer to a sampling request. */
export interface CreateMessageResult {
  role: 'assistant';
  /** The model that answered. */
  model: string;
  /** A content block, e.g. `{ type: 'text', text }`. */
  content: unknown;
  stopReason?: string;
  [key: string]: unknown;
}

/** What a handler of a server-initiated request is told. */
export interface ServerRequestContext {
  /** Aborted when the server cancels its request or the connection closes. */
  signal: AbortSignal;
}

/** A root the client offers a server: a `file://` URI of a directory the server may work in, and a name for people. */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** The questions a 2026-07-28 server asks inside a call's result (`input_required`), by method. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** The questions a run may leave pending: every method of an input request. */
export const INPUT_METHODS: readonly InputMethod[] = ['elicitation/create', 'sampling/createMessage', 'roots/list'];

/** True when `method` is one of {@link INPUT_METHODS}. */
export function isInputMethod(method: unknown): method is InputMethod {
  return INPUT_METHODS.some((m) => m === method);
}

/** A setting that leaves a kind of question pending for the host instead of answering it at once. */
export const DEFER = 'defer';

/** Host handlers for server-initiated requests; each one given declares its capability. */
export interface ClientHandlers {
  /** The questions left pending for the host (`'defer'`): declared, never answered here (2026-07-28 calls give them back). */
  deferred?: readonly InputMethod[];
  /** Answers `elicitation/create`; declares `elicitation` (form mode with defaults applied, and the modes of `elicitationModes`). */
  elicitation?(request: ElicitationRequest, context: ServerRequestContext): Promise<ElicitResult>;
  /** The elicitation modes the handler accepts (2025-11-25). Default `['form']`; `'url'` sends the user to a URL the server gives. */
  elicitationModes?: readonly ('form' | 'url')[];
  /** Answers `sampling/createMessage`; declares `sampling`. */
  sampling?(request: SamplingRequest, context: ServerRequestContext): Promise<CreateMessageResult>;
  /** The sampling handler accepts `tools` and `toolChoice` (2025-11-25): declares `sampling.tools`. */
  samplingTools?: boolean;
  /** Answers `roots/list`: declares `roots` (with listChanged; tell servers of changes with `rootsChanged()`). */
  roots?(context: ServerRequestContext): Promise<McpRoot[]>;
}

/** The client capabilities declared for `handlers` (none without handlers). */
export function clientCapabilities(handlers: ClientHandlers = {}): Record<string, unknown> {
  const modes = handlers.elicitationModes ?? ['form'];
  const deferred = handlers.deferred ?? [];
  return {
    // A deferred question is shown to a person later: form and URL both (a URL is shown to the host, never to the model).
    ...(deferred.includes('elicitation/create') ? { elicitation: { form: {}, url: {} } } : {}),
    ...(deferred.includes('sampling/createMessage') ? { sampling: {} } : {}),
    ...(deferred.includes('roots/list') ? { roots: {} } : {}),
    // applyDefaults: the SDK fills fields the user left out with the schema's defaults (SEP-1034).
    ...(handlers.elicitation
      ? {
          elicitation: {
            ...(modes.includes('form') ? { form: { applyDefaults: true } } : {}),
            ...(modes.includes('url') ? { url: {} } : {}),
          },
        }
      : {}),
    ...(handlers.sampling ? { sampling: handlers.samplingTools ? { tools: {} } : {} } : {}),
    ...(handlers.roots ? { roots: { listChanged: true } } : {}),
  };
}

/** Routes the server's requests to `handlers`; a handler's own error never reaches the server. */
export function installHandlers(client: Client, handlers: ClientHandlers = {}): void {
  const { elicitation, sampling, roots } = handlers;
  // The SDK checks what the handlers return against its own schemas; these types are ours.
  if (elicitation)
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      answer(() => elicitation(request.params, { signal: ctx.mcpReq.signal })),
    );
  if (sampling)
    client.setRequestHandler(
      'sampling/createMessage',
      // The SDK types the handler's result as its CreateMessageResult; ours leaves the model's `content` unknown, and the SDK checks it against its schema.
      (request, ctx) => answer(() => sampling(request.params, { signal: ctx.mcpReq.signal })) as never,
    );
  if (roots)
    client.setRequestHandler('roots/list', (_request, ctx) =>
      answer(async () => ({ roots: (await roots({ signal: ctx.mcpReq.signal })).map((r) => ({ ...r })) })),
    );
  // A deferred question pushed over a 2025 connection cannot wait: it is refused, saying why (docs/runtime.md).
  for (const method of handlers.deferred ?? [])
    client.setRequestHandler(method, () => {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `this client answers ${method} later (deferred), which only a 2026-07-28 call result can ask for`,
      );
    });
}

async function answer<T>(handle: () => Promise<T>): Promise<T> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'the client could not answer this request');
  }
}

/**
 * The SDK client's JSON Schema validator, backed by the ToolSchemaRegistry
 * (the one validator of the library; also spares every connection an Ajv).
 */
export function registryValidator(registry: ToolSchemaRegistry): jsonSchemaValidator {
  return {
    getValidator(schema) {
      const compiled = registry.compile(schema, { tool: 'sdk' });
      return (input) => {
        const result = compiled.validate(input);
        // The SDK's getValidator<T> types what a schema accepted as T (the schema's own type); the registry checked it against that schema.
        if (result.ok) return { valid: true, data: input as never, errorMessage: undefined };
        return {
          valid: false,
          data: undefined,
          errorMessage: result.issues.map((i) => `${i.instancePath || '/'}: ${i.message}`).join('; '),
        };
      };
    },
  };
}
