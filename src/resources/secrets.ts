/**
 * Secrets of MCP configs: env values and header values (API keys,
 * `Authorization`), and the password of a URL. They are stored as written and
 * handed to the server, but shown nowhere: outputs get the key with `***`.
 * A write that sends `***` back for a key that is stored keeps the stored
 * value, so a redacted document read by a model or a UI can be edited and
 * written again without losing its secrets.
 */
import { isPlainObject, setOwn } from '../json.js';

/** What a secret value is shown as. */
export const SECRET_MASK = '***';

const SECRET_MAPS = ['env', 'headers'] as const;

type Server = Record<string, unknown>;

function servers(data: unknown): [string, Server][] {
  if (!isPlainObject(data) || !isPlainObject(data.mcpServers)) return [];
  return Object.entries(data.mcpServers).filter((e): e is [string, Server] => isPlainObject(e[1]));
}

function maskUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = SECRET_MASK;
    return parsed.toString();
  } catch {
    return url;
  }
}

/** A copy of an mcp document with every env and header value, and URL password, shown as `***`. */
export function redactMcpDocument<T>(data: T): T {
  if (servers(data).length === 0) return data;
  const out = { ...(data as Record<string, unknown>) };
  const mcpServers: Record<string, unknown> = {};
  for (const [name, server] of Object.entries((data as { mcpServers: Record<string, unknown> }).mcpServers)) {
    if (!isPlainObject(server)) {
      setOwn(mcpServers, name, server);
      continue;
    }
    const copy: Server = { ...server };
    for (const key of SECRET_MAPS) {
      if (isPlainObject(server[key])) copy[key] = Object.fromEntries(Object.keys(server[key]).map((k) => [k, SECRET_MASK]));
    }
    if ('url' in server) copy.url = maskUrl(server.url);
    setOwn(mcpServers, name, copy);
  }
  out.mcpServers = mcpServers;
  return out as T;
}

/** A record with its data redacted when it is an mcp resource. */
export function redactRecord<R extends { kind: string; data: unknown }>(record: R): R {
  return record.kind === 'mcp' ? { ...record, data: redactMcpDocument(record.data) } : record;
}

/**
 * The values to hide in free text (a server's stderr): env and header values
 * of 4 characters or more (shorter ones, like "1" or "true", would mask noise).
 */
export function secretValues(config: unknown): string[] {
  if (!isPlainObject(config)) return [];
  const values: string[] = [];
  for (const key of SECRET_MAPS) {
    const map = config[key];
    if (isPlainObject(map)) for (const v of Object.values(map)) if (typeof v === 'string' && v.length >= 4) values.push(v);
  }
  // A bearer token appears without its scheme as often as with it.
  for (const v of [...values]) {
    const m = /^(?:Bearer|Basic|Token)\s+(.{4,})$/i.exec(v);
    if (m) values.push(m[1] as string);
  }
  return values.sort((a, b) => b.length - a.length);
}

/** `text` with every secret value replaced by `***`. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  return out;
}

/** The next document with `***` env/header values replaced by the stored ones (keys that exist only). */
export function keepMaskedSecrets(next: unknown, current: unknown): unknown {
  const stored = new Map(servers(current));
  for (const [name, server] of servers(next)) {
    const before = stored.get(name);
    if (before === undefined) continue;
    for (const key of SECRET_MAPS) {
      const map = server[key];
      const old = before[key];
      if (!isPlainObject(map) || !isPlainObject(old)) continue;
      for (const k of Object.keys(map)) if (map[k] === SECRET_MASK && typeof old[k] === 'string') map[k] = old[k];
    }
    if (typeof server.url === 'string' && typeof before.url === 'string') {
      try {
        const url = new URL(server.url);
        const was = new URL(before.url);
        if (url.password === encodeURIComponent(SECRET_MASK) || url.password === SECRET_MASK) {
          url.password = was.password;
          server.url = url.toString();
        }
      } catch {
        // not URLs: nothing to keep
      }
    }
  }
  return next;
}
