/**
 * Serving kit tools' interfaces (MCP Apps) in both eras, on the McpServer the
 * kit builds (its resources, beside the skills'): each `ui://` resource is
 * listed with the MIME type `text/html;profile=mcp-app` and its `_meta.ui`
 * (csp, permissions, domain, prefersBorder), and read as one text item with
 * the same `_meta.ui` — the form ext-apps' `registerAppResource` serves. The
 * tool names it in `_meta.ui` (resourceUri, visibility) and in the deprecated
 * flat key `_meta["ui/resourceUri"]` for older hosts, as ext-apps'
 * `registerAppTool` does. ext-apps itself is not needed: the kit serves the
 * same wire form with the SDK's own resources.
 *
 * A tool with an interface is served to every client, whether or not it
 * declares the extension: the tool works without its interface (its result
 * is the same), and a host that renders none just calls it.
 */
import type { CacheHint, McpServer } from '@modelcontextprotocol/server';
import { AgtError } from '../../errors.js';
import { APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY } from '../../mcp/apps/ui-meta.js';
import { type DefinedApp, defaultAppUri } from '../app.js';
import type { ServableTool } from '../define-tool.js';

/** One served interface: its URI, the tool it was first declared by, its HTML and its `_meta.ui`. */
interface ServedApp {
  uri: string;
  tool: string;
  html: string;
  ui: Record<string, unknown>;
}

/** The interfaces of one server's tools: each tool's `_meta`, and the resources to serve. */
export interface KitApps {
  /** The `_meta` a tool is listed with (undefined: it has no interface). */
  toolMeta(tool: string): Record<string, unknown> | undefined;
  /** Whether any tool has an interface. */
  readonly any: boolean;
  /** Serves every interface on `mcp` (before it connects). */
  attach(mcp: McpServer, cacheHint: CacheHint): void;
}

// The resource-level `_meta.ui` of an interface: what its frame may do.
function resourceUi(app: DefinedApp): Record<string, unknown> {
  return {
    ...(app.csp === undefined ? {} : { csp: app.csp }),
    ...(app.permissions === undefined ? {} : { permissions: app.permissions }),
    ...(app.domain === undefined ? {} : { domain: app.domain }),
    ...(app.prefersBorder === undefined ? {} : { prefersBorder: app.prefersBorder }),
  };
}

/**
 * The interfaces of `tools`, served by the server `serverName`. Two tools may name one URI (ext-apps' pattern of
 * an app-only tool sharing its tool's page) when they give the same page and metadata; else invalid_input.
 */
export function kitApps(serverName: string, tools: Iterable<ServableTool>): KitApps {
  const byUri = new Map<string, ServedApp>();
  const metas = new Map<string, Record<string, unknown>>();
  for (const tool of tools) {
    const app = tool.app;
    if (app === undefined) continue;
    const uri = app.uri ?? defaultAppUri(serverName, tool.name);
    const served: ServedApp = { uri, tool: tool.name, html: app.html, ui: resourceUi(app) };
    const same = byUri.get(uri);
    if (same === undefined) byUri.set(uri, served);
    else if (same.html !== served.html || JSON.stringify(same.ui) !== JSON.stringify(served.ui))
      throw new AgtError(
        'invalid_input',
        `tools "${same.tool}" and "${tool.name}" name the interface ${uri} with different pages or metadata`,
        {
          details: { field: 'app.uri', tool: tool.name },
        },
      );
    const ui = { resourceUri: uri, ...(app.visibility === undefined ? {} : { visibility: [...app.visibility] }) };
    metas.set(tool.name, { ui, [LEGACY_RESOURCE_URI_KEY]: uri });
  }
  return {
    toolMeta: (tool) => metas.get(tool),
    any: byUri.size > 0,
    attach(mcp, cacheHint) {
      for (const app of byUri.values()) {
        const meta = Object.keys(app.ui).length === 0 ? {} : { _meta: { ui: app.ui } };
        mcp.registerResource(
          app.tool,
          app.uri,
          { mimeType: APP_MIME_TYPE, title: `${app.tool} interface`, ...meta, cacheHint },
          async () => ({
            contents: [{ uri: app.uri, mimeType: APP_MIME_TYPE, text: app.html, ...meta }],
          }),
        );
      }
    },
  };
}
