/**
 * MCP Apps: reading a tool's interface from the tool's own server (U2) — the
 * tool's `_meta.ui.resourceUri`, then `resources/read` of that URI on the same
 * connection, checked by appResourceOf (the listing's `_meta.ui` asked for only
 * when the content item has none).
 */
import { AgtError, isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import type { RequestOptions, ResourceContents } from '../connection-types.js';
import type { McpResource } from '../requests/lists.js';
import { type AppResource, appResourceOf } from './app-resource.js';
import { readToolUi } from './ui-meta.js';

/** What reading an interface needs of a connection. */
export interface AppSource {
  readResource(uri: string, options?: RequestOptions): Promise<ResourceContents>;
  listResources(): Promise<McpResource[]>;
}

/** The interface URI a tool declares: not_found when it declares none, protocol_error when its `_meta.ui` is malformed. */
export function appUriOf(tool: string, meta: unknown): string {
  const read = readToolUi(meta);
  if (!read.ok)
    throw new AgtError('protocol_error', `tool "${outsideText(tool, { max: 128 })}": ${read.field} ${read.message}`, {
      details: { reason: 'app_invalid', field: read.field },
    });
  if (read.ui?.resourceUri === undefined)
    throw new AgtError('not_found', `tool "${outsideText(tool, { max: 128 })}" declares no interface (_meta.ui.resourceUri)`, {
      details: { tool },
    });
  return read.ui.resourceUri;
}

/** Reads and checks the interface `uri` from `source` (the server of the tool that declares it). */
export async function readApp(source: AppSource, uri: string, options: RequestOptions & { maxBytes?: number } = {}): Promise<AppResource> {
  const { maxBytes, ...request } = options;
  const answer = await source.readResource(uri, request);
  const contents: unknown = isPlainObject(answer) ? answer.contents : undefined; // a hostile answer may be anything: appResourceOf says what
  const item = Array.isArray(contents) ? contents.find((c) => isPlainObject(c) && c.uri === uri) : undefined;
  const hasOwnUi = isPlainObject(item) && isPlainObject(item._meta) && item._meta.ui !== undefined;
  const listed = hasOwnUi ? undefined : (await listingOf(source, request.signal)).find((r) => r.uri === uri)?._meta;
  return appResourceOf(uri, answer, { ...(maxBytes === undefined ? {} : { maxBytes }), listed });
}

// The server's resources (none when listing fails); the caller's signal ends the wait (a server may never answer).
function listingOf(source: AppSource, signal: AbortSignal | undefined): Promise<McpResource[]> {
  const listing = source.listResources().catch((): McpResource[] => []);
  if (signal === undefined) return listing;
  return new Promise((resolve, reject) => {
    const onAbort = () =>
      reject(isAgtError(signal.reason) ? signal.reason : new AgtError('cancelled', 'reading the interface was cancelled'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void listing.then((resources) => {
      signal.removeEventListener('abort', onAbort);
      resolve(resources);
    });
  });
}
