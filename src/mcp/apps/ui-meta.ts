/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`): what a tool declares of
 * its interface in `_meta.ui` — the `ui://` resource it renders and who may
 * call it (`visibility`: the model, the app, or both; default both) — read
 * from the current form or the deprecated flat key `_meta["ui/resourceUri"]`.
 * A server's declaration is untrusted: a malformed one is refused by field,
 * never guessed (a misread visibility could give an app-only tool to the model).
 */
import { isPlainObject } from '../../json.js';
import { MAX_APP_URI_LENGTH } from '../../bounds.js';

/** The extension's id, as capabilities declare it. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an app's HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** What a client that renders apps declares under `extensions[UI_EXTENSION]`. */
export const UI_CAPABILITY: Readonly<{ mimeTypes: readonly string[] }> = Object.freeze({ mimeTypes: Object.freeze([APP_MIME_TYPE]) });
/** The deprecated flat key of a tool's interface URI. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** Who may call a tool: the model, the app, or both. */
export type AppVisibility = 'model' | 'app';

/** A tool's interface as declared: its `ui://` resource (if any) and who may call it. */
export interface ToolUi {
  resourceUri?: string;
  visibility: readonly AppVisibility[];
}

/** A tool's `_meta.ui` read: `ok` with what it declares (undefined: nothing), or the field that is malformed and why. */
export type ToolUiRead = { ok: true; ui: ToolUi | undefined } | { ok: false; field: string; message: string };

const BOTH: readonly AppVisibility[] = Object.freeze(['model', 'app']);

/** Reads a tool's `_meta` for its interface (see {@link ToolUi}); never throws. */
export function readToolUi(meta: unknown): ToolUiRead {
  if (!isPlainObject(meta)) return { ok: true, ui: undefined };
  const ui = meta.ui;
  const flat = meta[LEGACY_RESOURCE_URI_KEY];
  if (ui === undefined && flat === undefined) return { ok: true, ui: undefined };
  if (ui !== undefined && !isPlainObject(ui)) return { ok: false, field: '_meta.ui', message: 'must be an object' };
  // The current form wins over the flat key; a present but null one is malformed, not absent (never the flat key's).
  const current = ui?.resourceUri !== undefined;
  const uri = current ? ui?.resourceUri : flat;
  const field = current ? '_meta.ui.resourceUri' : `_meta["${LEGACY_RESOURCE_URI_KEY}"]`;
  if (uri !== undefined) {
    const problem = uriProblem(uri);
    if (problem !== undefined) return { ok: false, field, message: problem };
  }
  const visibility = ui?.visibility;
  if (visibility === undefined) return { ok: true, ui: { ...(uri === undefined ? {} : { resourceUri: uri as string }), visibility: BOTH } };
  if (!Array.isArray(visibility) || visibility.length === 0 || visibility.length > 2)
    return { ok: false, field: '_meta.ui.visibility', message: 'must be a list of "model" and/or "app"' };
  if (!visibility.every((v) => v === 'model' || v === 'app'))
    return { ok: false, field: '_meta.ui.visibility', message: 'may hold only "model" and "app"' };
  return {
    ok: true,
    ui: {
      ...(uri === undefined ? {} : { resourceUri: uri as string }),
      visibility: Object.freeze([...new Set(visibility)]) as AppVisibility[],
    },
  };
}

/** Why `uri` is no interface URI (a `ui://` URI of bounded length, no whitespace, control, bidi/format characters or half a surrogate pair); undefined: it is one. */
export function uriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be a string';
  if (uri.length > MAX_APP_URI_LENGTH) return `must be at most ${MAX_APP_URI_LENGTH} characters`;
  if (!uri.startsWith('ui://') || uri.length === 'ui://'.length) return 'must be a ui:// URI';
  // Format characters (bidi overrides, zero-width) would show a host or a terminal another URI than the one read.
  if (/[\s\p{Cc}\p{Cf}\p{Cs}]/u.test(uri)) return 'may not hold whitespace, control or format characters';
  return undefined;
}

/** True unless the tool declares a visibility without "model" (or a malformed `_meta.ui`: then it is for nobody). */
export function visibleTo(meta: unknown, who: AppVisibility): boolean {
  const read = readToolUi(meta);
  return read.ok && (read.ui === undefined || read.ui.visibility.includes(who));
}
