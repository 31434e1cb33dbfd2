/**
 * What the app bridge needs of a run: a structural view of NativeRun's methods
 * (so a host may wrap a run, and a test may give a fake one). Every request of
 * an app goes through these, never straight to a connection.
 */
import type { ResourceContents } from '../mcp/connection-types.js';
import type { BatchResult, PendingCall, ToolResult } from '../runtime/types.js';

/** A tool as the bridge reads it from `run.tools({ includeAppOnly: true })`. */
export interface AppHostTool {
  /** The run's name of the tool (alias). */
  name: string;
  description?: string;
  inputSchema: object;
  /** The tool's `_meta` as its server declared it (`ui.resourceUri`, `ui.visibility`). */
  _meta?: Readonly<Record<string, unknown>>;
  /** The tool's interface (a run with `apps: true`). */
  app?: { resourceUri: string };
  /** The mount of its server and the server's own name of the tool, where the run says them. */
  mount?: string;
  remoteTool?: string;
}

/** The methods of a run (NativeRun) the app bridge calls. */
export interface AppHostRun {
  /** The run's tools; the bridge asks with `includeAppOnly: true`. */
  tools(options?: { includeAppOnly?: boolean }): readonly AppHostTool[];
  /** An app's tool call, as a batch of one through the run's pipeline (U3). */
  callFromApp(
    tool: string,
    args: Record<string, unknown>,
    options: { from: string; batchId: string; callId?: string; signal?: AbortSignal },
  ): Promise<BatchResult>;
  /** Resolves when a call of the run that waits (approval, input, task) ends. */
  awaitCall(batchId: string, callId: string, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** The calls that wait, of one batch. */
  pending(batchId?: string): readonly PendingCall[];
  /** Reads one resource of a mount's server (the run's own mounts only). */
  readResource(mount: string, uri: string, options?: { signal?: AbortSignal }): Promise<ResourceContents>;
  /** Keeps what app `from` adds to the model's context (U5). */
  updateAppContext(from: string, context: { content?: unknown[]; structuredContent?: unknown }): void;
}
