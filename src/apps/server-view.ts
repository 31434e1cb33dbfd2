/**
 * The app's view of its own server, through the run: the resources it may
 * read (its tool's mount only, U2) and the tools it may see (that server's,
 * visible to the app). The mount is the one the run named for the rendered
 * call (an ok result's `app.mount`, a waiting call's `mount`) or for the tool.
 */
import type { ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { visibleTo } from '../mcp/apps/ui-meta.js';
import { outsideText } from '../outside-text.js';
import type { AppHostRun, AppHostTool } from './host-run.js';
import type { RenderedCall } from './tool-delivery.js';

/** The mount the run named for the rendered call, if it named one (an ok result's `app.mount`, a waiting call's `mount`). */
export function mountOfCall(run: AppHostRun, call: RenderedCall): string | undefined {
  const app: unknown = call.result?.status === 'ok' ? (call.result as { app?: unknown }).app : undefined;
  if (isPlainObject(app) && typeof app.mount === 'string') return app.mount;
  if (call.batchId === undefined || call.callId === undefined) return undefined;
  return run.pending(call.batchId).find((p) => p.callId === call.callId)?.mount;
}

/** The server side of one app: its tool's mount, its resources and its tools. */
export class AppServerView {
  readonly #run: AppHostRun;
  readonly #tool: string;
  readonly #callMount: string | undefined;

  constructor(run: AppHostRun, tool: string, callMount: string | undefined) {
    this.#run = run;
    this.#tool = tool;
    this.#callMount = callMount;
  }

  /** The mount of the app's tool: the rendered call's, else the run's tool listing's. */
  mount(): string | undefined {
    return this.#callMount ?? this.#own(this.#run.tools({ includeAppOnly: true }))?.mount;
  }

  /** Reads `uri` from the app's own server (its tool's mount); an error the app reads when the run names no mount. */
  async read(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const mount = this.mount();
    if (mount === undefined)
      throw new AgtError(
        'not_found',
        `the host cannot read "${outsideText(uri, { max: 200 })}": it does not know the server of this app's tool`,
      );
    const answer = await this.#run.readResource(mount, uri, { signal });
    return { contents: answer.contents.map((c) => ({ ...c })) };
  }

  /** The tools of the app's server that it may call, by the server's own names where the run gives them. */
  tools(): Tool[] {
    const all = this.#run.tools({ includeAppOnly: true });
    const own = this.#own(all);
    const mount = this.#callMount ?? own?.mount;
    const uri = own === undefined ? undefined : interfaceOf(own);
    // Without mounts in the listing, the app's server is told by its tool and the tools sharing its interface.
    const sameServer = (t: AppHostTool) =>
      t.mount !== undefined && mount !== undefined ? t.mount === mount : t === own || (uri !== undefined && interfaceOf(t) === uri);
    return all
      .filter((t) => sameServer(t) && visibleTo(t._meta, 'app'))
      .map((t) => ({
        name: t.remoteTool ?? t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        inputSchema: t.inputSchema as Tool['inputSchema'],
        ...(t._meta === undefined ? {} : { _meta: { ...t._meta } }),
      }));
  }

  #own(tools: readonly AppHostTool[]): AppHostTool | undefined {
    return tools.find((t) => t.name === this.#tool);
  }
}

// The interface a tool declares: the run's `app`, else its `_meta.ui.resourceUri`.
function interfaceOf(tool: AppHostTool): string | undefined {
  if (tool.app !== undefined) return tool.app.resourceUri;
  const ui = tool._meta?.ui;
  return isPlainObject(ui) && typeof ui.resourceUri === 'string' ? ui.resourceUri : undefined;
}
