/**
 * The host bridge of MCP Apps (agt-mcp/apps): ext-apps' AppBridge with no
 * client of its own, so nothing an app asks goes straight to a connection.
 * Its tool calls are calls of the run (U3), its resource reads and tool lists
 * its own server's through the run, the tool's input and result reach it only
 * once the run permitted and ended the call (U4), and what it adds to the
 * model's context is kept by the run for the model's next step (U5). Messages,
 * links (http and https only) and size changes go to the host's callbacks.
 */
import {
  AppBridge,
  type McpUiHostCapabilities,
  type McpUiHostContext,
  type McpUiMessageRequest,
  type McpUiUpdateModelContextRequest,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import pkg from '../../package.json' with { type: 'json' };
import { MAX_APP_CONTEXT_BYTES } from '../bounds.js';
import { AgtError } from '../errors.js';
import type { ToolResult } from '../runtime/types.js';
import { appToolCall } from './app-calls.js';
import type { AppHostRun } from './host-run.js';
import { openableLink } from './links.js';
import { AppServerView, mountOfCall } from './server-view.js';
import { deliverWatchedCall, type RenderedCall, watchRenderedCall } from './tool-delivery.js';

/** How {@link createAppBridge} hosts one app: the tool it belongs to, the call that rendered it, the host's callbacks. */
export interface AppBridgeOptions {
  /** The run's name of the tool whose interface this is: the `from` of the app's calls. */
  tool: string;
  /** The call that rendered the app (its batch and call ids, arguments and, if it ended, result). */
  batchId?: string;
  callId?: string;
  arguments?: Record<string, unknown>;
  result?: ToolResult;
  /** How the host names itself to the app (default agt-mcp). */
  hostInfo?: { name: string; version: string };
  /** The host context the app starts with (theme, display mode …). */
  hostContext?: McpUiHostContext;
  /** `ui/message`: a message the app adds to the conversation (at most 16 KiB as JSON). Absent: the app is told the host takes none. */
  onMessage?(params: McpUiMessageRequest['params']): void | Promise<void>;
  /** `ui/open-link`: an http or https URL (anything else is refused before it gets here). Absent: refused. */
  onOpenLink?(url: string): void | Promise<void>;
  /** `ui/update-model-context`, after the run kept it for the model's next step. */
  onModelContext?(context: McpUiUpdateModelContextRequest['params']): void;
  /** `ui/notifications/size-changed`: each side a whole number of pixels, 0 to 100 000 (other values are dropped). */
  onSizeChange?(size: { width?: number; height?: number }): void;
  /** How often an app's call that waits (an approval) sends the app progress, so its request does not time out (default 15 s; 0: never). */
  progressIntervalMs?: number;
}

const DEFAULT_PROGRESS_MS = 15_000;
const HOST_INFO = { name: 'agt-mcp', version: pkg.version };

// The bridge, closed for good by close() or by its transport closing: what waits for the app is aborted.
class GovernedAppBridge extends AppBridge {
  readonly #closed: AbortController;

  constructor(
    closed: AbortController,
    hostInfo: { name: string; version: string },
    capabilities: McpUiHostCapabilities,
    hostContext?: McpUiHostContext,
  ) {
    super(null, hostInfo, capabilities, hostContext === undefined ? {} : { hostContext });
    this.#closed = closed;
  }

  protected override _onclose(): void {
    this.#closed.abort();
    super._onclose();
  }

  override async close(): Promise<void> {
    this.#closed.abort();
    await super.close();
  }
}

/**
 * An AppBridge for the app of `options.tool`, governed by `run`: connect it to the app's transport
 * (`bridge.connect(new PostMessageTransport(…))`); `bridge.close()` ends it and everything it waits for.
 */
export function createAppBridge(run: AppHostRun, options: AppBridgeOptions): AppBridge {
  if (typeof options.tool !== 'string' || options.tool === '')
    throw new AgtError('invalid_input', "createAppBridge: tool must be the run's name of the tool whose app this is", {
      details: { field: 'tool' },
    });
  const { tool } = options;
  const progressIntervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_MS;
  if (!Number.isFinite(progressIntervalMs) || progressIntervalMs < 0)
    throw new AgtError('invalid_input', 'createAppBridge: progressIntervalMs must be a number of milliseconds, 0 or more', {
      details: { field: 'progressIntervalMs' },
    });
  const call: RenderedCall = {
    ...(options.batchId === undefined ? {} : { batchId: options.batchId }),
    ...(options.callId === undefined ? {} : { callId: options.callId }),
    ...(options.arguments === undefined ? {} : { arguments: options.arguments }),
    ...(options.result === undefined ? {} : { result: options.result }),
  };
  const closed = new AbortController();
  const bridge = new GovernedAppBridge(closed, options.hostInfo ?? HOST_INFO, capabilities(options), options.hostContext);
  const view = new AppServerView(run, tool, mountOfCall(run, call));
  const signalOf = (request: AbortSignal) => AbortSignal.any([closed.signal, request]);

  bridge.oncalltool = (params, ctx) =>
    appToolCall(
      run,
      tool,
      {
        name: params.name,
        ...(params.arguments === undefined ? {} : { arguments: params.arguments }),
        ...(ctx.mcpReq._meta?.progressToken === undefined ? {} : { progressToken: ctx.mcpReq._meta.progressToken }),
        notify: (n) => ctx.mcpReq.notify(n),
      },
      { signal: signalOf(ctx.mcpReq.signal), progressIntervalMs },
    );
  bridge.onreadresource = (params, ctx) => view.read(params.uri, signalOf(ctx.mcpReq.signal));
  bridge.setRequestHandler('tools/list', () => ({ tools: view.tools() }));
  bridge.onmessage = async (params) => {
    if (options.onMessage === undefined) throw new AgtError('forbidden', 'the host takes no messages');
    // U5: a message joins the conversation the model reads: bounded as the app's model context is.
    if (Buffer.byteLength(JSON.stringify(params.content) ?? '', 'utf8') > MAX_APP_CONTEXT_BYTES)
      throw new AgtError('invalid_input', `an app's message is larger than ${MAX_APP_CONTEXT_BYTES} bytes`, {
        details: { field: 'content' },
      });
    try {
      await options.onMessage(params);
      return {};
    } catch {
      return { isError: true }; // the host's own error (its words, maybe its secrets) never reaches the app
    }
  };
  bridge.onopenlink = async (params) => {
    const url = openableLink(params.url);
    if (url === undefined || options.onOpenLink === undefined) return { isError: true };
    try {
      await options.onOpenLink(url);
      return {};
    } catch {
      return { isError: true };
    }
  };
  bridge.onupdatemodelcontext = async (params) => {
    run.updateAppContext(tool, params); // U5: kept for the model's next step (invalid_input past its bound: the app reads it)
    try {
      options.onModelContext?.(params);
    } catch {
      // the host's callback failing is the host's: the context is kept, and the app is not told the host's words
    }
    return {};
  };
  const onSizeChange = options.onSizeChange;
  if (onSizeChange !== undefined)
    bridge.onsizechange = (size) => {
      const fit = fittingSize(size);
      if (fit !== undefined) onSizeChange(fit);
    };
  const watched = watchRenderedCall(run, call, closed.signal); // from now: a call decided while the app loads is not missed
  let delivered = false;
  bridge.addEventListener('initialized', () => {
    if (delivered || watched === undefined) return; // a second handshake (a remounted view) gets nothing twice
    delivered = true;
    deliverWatchedCall(bridge, watched, closed.signal).catch(() => undefined); // closed mid-way: nothing left to tell
  });
  return bridge;
}

// What the host offers the app: its server's tools and resources (through the run), context updates, and messages
// and links when the host takes them.
function capabilities(options: AppBridgeOptions): McpUiHostCapabilities {
  return {
    serverTools: {},
    serverResources: {},
    updateModelContext: { text: {}, structuredContent: {} },
    ...(options.onMessage === undefined ? {} : { message: { text: {} } }),
    ...(options.onOpenLink === undefined ? {} : { openLinks: {} }),
  };
}

const MAX_FRAME_PIXELS = 100_000;

// The size an app asks for, as the host may use it: each side a whole number of pixels from 0 to 100 000; a side that
// is not such a number (negative, NaN, 1e20, a string) is dropped; undefined when no side is left.
function fittingSize(size: unknown): { width?: number; height?: number } | undefined {
  if (typeof size !== 'object' || size === null) return undefined;
  const side = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_FRAME_PIXELS ? Math.round(value) : undefined;
  const { width, height } = size as { width?: unknown; height?: unknown };
  const fit = {
    ...(side(width) === undefined ? {} : { width: side(width) }),
    ...(side(height) === undefined ? {} : { height: side(height) }),
  };
  return Object.keys(fit).length === 0 ? undefined : fit;
}
