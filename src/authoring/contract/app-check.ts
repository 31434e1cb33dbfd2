/**
 * The check of a tool's interface (MCP Apps, U2), for `agt mcp check` and
 * runContract: for each tool that declares one (`_meta.ui.resourceUri`, or
 * the deprecated flat key), on the server's real answers — the declaration is
 * well formed (and its two keys agree), `resources/list` lists the `ui://`
 * resource with the MIME type `text/html;profile=mcp-app`, and `resources/read`
 * returns it as a host's verified read does (readApp: the item for that URI,
 * the MIME type, the size bound, CSP domains and permissions entry by entry).
 * Reading changes nothing, so every listed tool's interface is checked, called
 * or not. A failure names the tool and the field.
 */
import { isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import type { RequestOptions } from '../../mcp/connection-types.js';
import type { RawTool } from '../../mcp/requests/lists.js';
import { type AppSource, readApp } from '../../mcp/apps/read.js';
import { isAppMimeType } from '../../mcp/apps/app-resource.js';
import { APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, readToolUi } from '../../mcp/apps/ui-meta.js';

/** One thing wrong with a tool's interface: the field, and why. */
export interface AppProblem {
  field: string;
  message: string;
}

/** A tool's interface, checked. */
export interface AppCheck {
  tool: string;
  /** The `ui://` URI it declares (absent when the declaration is malformed). */
  uri?: string;
  passed: boolean;
  /** Empty when it passed. */
  problems: AppProblem[];
}

/** Checks the interface `tool` declares on `source` (its own server); undefined when it declares none. */
export async function checkToolApp(source: AppSource, tool: RawTool, options: RequestOptions = {}): Promise<AppCheck | undefined> {
  const name = tool.name;
  const read = readToolUi(tool._meta);
  if (!read.ok) return failed(name, undefined, [{ field: read.field, message: read.message }]);
  const uri = read.ui?.resourceUri;
  if (uri === undefined) return undefined; // no interface of its own (visibility only, or nothing)
  const problems: AppProblem[] = [];
  const ui = isPlainObject(tool._meta) && isPlainObject(tool._meta.ui) ? tool._meta.ui : undefined;
  const flat = tool._meta?.[LEGACY_RESOURCE_URI_KEY];
  if (ui?.resourceUri !== undefined && flat !== undefined && flat !== ui.resourceUri)
    problems.push({ field: `_meta["${LEGACY_RESOURCE_URI_KEY}"]`, message: 'differs from _meta.ui.resourceUri' });
  try {
    const listed = (await source.listResources()).find((r) => r.uri === uri);
    if (listed === undefined) problems.push({ field: 'resources/list', message: `does not list ${outsideText(uri, { max: 200 })}` });
    else if (listed.mimeType !== undefined && !isAppMimeType(listed.mimeType))
      problems.push({
        field: 'resources/list mimeType',
        message: `is ${outsideText(listed.mimeType, { max: 100 })}, not ${APP_MIME_TYPE}`,
      });
  } catch (error) {
    problems.push({ field: 'resources/list', message: messageOf(error) });
  }
  try {
    await readApp(source, uri, options);
  } catch (error) {
    const field = isAgtError(error) && typeof error.details?.field === 'string' ? error.details.field : 'resources/read';
    problems.push({ field, message: messageOf(error) });
  }
  return problems.length === 0 ? { tool: name, uri, passed: true, problems } : failed(name, uri, problems);
}

function failed(tool: string, uri: string | undefined, problems: AppProblem[]): AppCheck {
  return { tool, ...(uri === undefined ? {} : { uri }), passed: false, problems };
}

function messageOf(error: unknown): string {
  return outsideText(error instanceof Error ? error.message : 'the request failed', { max: 500 });
}
