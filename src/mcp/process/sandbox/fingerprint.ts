/**
 * The sandbox a server config launches with, as a hash (P5): the pool keys on
 * it and a run's fingerprint covers it, so changing a server's sandbox never
 * reuses a connection or resumes a run made under other rules. Undefined for
 * a config without a sandbox, so their keys and fingerprints stay as they were.
 */
import os from 'node:os';
import { isPlainObject } from '../../../json.js';
import { resolveSandbox, wantsSandbox } from '../../../config/sandbox.js';
import { canonicalHash } from '../../../schema/canonical.js';

// Stands for the private temp folder each launch makes (its name differs per launch; its rule does not).
const PRIVATE_TMP = '/agt-sandbox-private-tmp';

/** The hash of the sandbox `server` (a stdio config) resolves to, or undefined when it asks for none. */
export function sandboxHash(server: unknown, home: string = os.homedir()): string | undefined {
  if (!isPlainObject(server)) return undefined;
  // VS Code's `sandboxEnabled`, folded in as config normalisation does (a stored document may predate that).
  const enabled = server.sandboxEnabled;
  const asked = enabled === true ? (server.sandbox ?? true) : enabled === false ? undefined : server.sandbox;
  if (!wantsSandbox({ sandbox: asked })) return undefined;
  const cwd = typeof server.cwd === 'string' ? server.cwd : '';
  const env = isPlainObject(server.env) ? server.env : {};
  const serverHome = typeof env.HOME === 'string' ? env.HOME : home;
  try {
    return canonicalHash({ sandbox: resolveSandbox({ sandbox: asked, cwd }, serverHome, PRIVATE_TMP) });
  } catch {
    return canonicalHash({ sandbox: asked }); // malformed: refused at launch; keyed as written meanwhile
  }
}

/** The sandbox hash of a stored mcp document's (first) server, or undefined. */
export function documentSandboxHash(document: unknown): string | undefined {
  const servers = isPlainObject(document) && isPlainObject(document.mcpServers) ? Object.values(document.mcpServers) : [];
  return sandboxHash(servers[0]);
}
