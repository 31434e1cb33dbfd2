/**
 * Tool aliases (F5): the name a model sees for a mounted server's tool. A pure
 * function of (resource reference, remote tool name) — never of positions —
 * so reordering or adding mounts never changes an alias or points it at
 * another tool.
 *
 * Every alias matches `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`, valid for OpenAI,
 * Anthropic and Gemini. Injective by construction:
 * - readable form `category__name__tool`, used only when it is lossless: the
 *   three parts hold no "__", no ".", no leading/trailing "_", the tool name
 *   only `[A-Za-z0-9_-]`, a letter first, 64 characters at most. Such an
 *   alias splits back into exactly its three parts;
 * - otherwise `<tool prefix>_h<16 hex of sha256(reference NUL tool)>`, which
 *   never contains "__", so it cannot equal a readable alias.
 */
import { createHash } from 'node:crypto';
import { MAX_NAME_LENGTH } from '../../bounds.js';

export { MODEL_TOOL_NAME } from '../../tool-names.js';

const PART = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/; // no "__", no ".", no trailing "_" checked below
const TOOL = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;

function lossless(part: string, pattern: RegExp): boolean {
  return pattern.test(part) && !part.endsWith('_');
}

/** The alias of `tool` of the server mounted as `reference`. */
export function toolAlias(reference: string, tool: string): string {
  const slash = reference.indexOf('/');
  const category = reference.slice(0, slash);
  const name = reference.slice(slash + 1);
  const readable = `${category}__${name}__${tool}`;
  if (
    lossless(category, PART) &&
    lossless(name, PART) &&
    lossless(tool, TOOL) &&
    /^[a-zA-Z]/.test(category) &&
    readable.length <= MAX_NAME_LENGTH
  ) {
    return readable;
  }
  const hash = createHash('sha256').update(`${reference}\0${tool}`).digest('hex').slice(0, 16);
  let prefix = tool
    .replace(/[^A-Za-z0-9-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|_+$/g, '')
    .slice(0, 40);
  if (!/^[A-Za-z]/.test(prefix)) prefix = `t${prefix === '' ? '' : `_${prefix}`}`.replace(/__+/g, '_');
  return `${prefix}_h${hash}`;
}
