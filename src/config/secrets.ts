/**
 * Secrets of MCP configs: env values and header values (API keys,
 * `Authorization`), and the password of a URL. They are stored as written and
 * handed to the server, but shown nowhere: outputs get the key with `***`.
 * A write that sends `***` back for a key that is stored keeps the stored
 * value, so a redacted document read by a model or a UI can be edited and
 * written again without losing its secrets.
 */
import { isPlainObject, setOwn } from '../json.js';
import { PLACEHOLDER } from './placeholders.js';
import { isOnlyScheme, isSecretName, MIN_SECRET_LENGTH, schemeToken } from '../secret-rule.js';

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

// A value made only of placeholders (and an auth scheme) is shown as written: placeholders are not secrets, their values are.
function shownValue(value: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('${')) return SECRET_MASK;
  const literal = value.replace(PLACEHOLDER, '');
  return isOnlyScheme(literal) ? value : SECRET_MASK;
}

// A flag whose value is a secret: --token, --api-key, --password, --client-secret, … (the one secret rule's names).
const isSecretFlag = (flag: string) => /^--?[^-]/.test(flag) && isSecretName(flag.replace(/^--?/, ''));

/** The indexes of `args` that hold a secret: the value of `--token=V`, or the argument after `--token`. */
export function secretArgIndexes(args: readonly unknown[]): number[] {
  const out: number[] = [];
  args.forEach((arg, i) => {
    if (typeof arg !== 'string') return;
    const eq = arg.indexOf('=');
    if (eq > 0 && isSecretFlag(arg.slice(0, eq))) out.push(i);
    else if (eq === -1 && isSecretFlag(arg) && typeof args[i + 1] === 'string' && !(args[i + 1] as string).startsWith('-')) out.push(i + 1);
  });
  return out;
}

/** The value a secret argument carries (`V` of `--token=V`, or the whole argument). */
export function secretArgValue(arg: string): string {
  const eq = arg.indexOf('=');
  return eq > 0 && arg.startsWith('-') ? arg.slice(eq + 1) : arg;
}

// args with the values of secret-looking flags shown as *** (placeholders as written).
function maskSecretArgs(args: unknown[]): unknown[] {
  const out = [...args];
  for (const i of secretArgIndexes(args)) {
    const arg = args[i] as string;
    const value = secretArgValue(arg);
    if (shownValue(value) === value) continue;
    out[i] = value === arg ? SECRET_MASK : `${arg.slice(0, arg.length - value.length)}${SECRET_MASK}`;
  }
  return out;
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
      const map = server[key];
      if (isPlainObject(map)) copy[key] = Object.fromEntries(Object.keys(map).map((k) => [k, shownValue(map[k])]));
    }
    if ('url' in server) copy.url = maskUrl(server.url);
    if (Array.isArray(server.args)) copy.args = maskSecretArgs(server.args);
    setOwn(mcpServers, name, copy);
  }
  out.mcpServers = mcpServers;
  return out as T;
}

/** A record with its data redacted when it is an mcp resource. */
export function redactRecord<R extends { kind: string; data: unknown }>(record: R): R {
  return record.kind === 'mcp' ? { ...record, data: redactMcpDocument(record.data) } : record;
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
    if (Array.isArray(server.args) && Array.isArray(before.args) && server.args.length === before.args.length) {
      const shown = maskSecretArgs(before.args);
      for (const i of secretArgIndexes(before.args)) {
        if (server.args[i] === shown[i] && shown[i] !== before.args[i]) server.args[i] = before.args[i]; // sent back as shown: keep the stored value
      }
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

export { MIN_SECRET_LENGTH, schemeToken };

/** Masks a connection's known secret values in what its server sends back. */
export interface SecretMasker {
  /** The values masked, longest first. */
  readonly secrets: readonly string[];
  /** `text` with every secret shown as `***`. */
  text(text: string): string;
  /** A copy of a JSON value with every secret in its strings and keys shown as `***` (no recursion). */
  value<T>(value: T): T;
  /** Adds a value learned later (a token a provider returned). */
  add(value: string): void;
}

/**
 * A masker for `values` (env values, header values, resolved placeholders,
 * passwords) of at least MIN_SECRET_LENGTH characters; a value with an auth
 * scheme ({@link schemeToken}) is also masked without it. Like CI log
 * masking: whatever a server repeats of them is never shown.
 */
export function secretMasker(values: Iterable<string>): SecretMasker {
  const set = new Set<string>();
  let secrets: string[] = [];
  const add = (value: string) => {
    const before = set.size;
    if (value.length >= MIN_SECRET_LENGTH) set.add(value);
    const token = schemeToken(value);
    if (token !== undefined && token.length >= MIN_SECRET_LENGTH) set.add(token);
    if (set.size !== before) secrets = [...set].sort((a, b) => b.length - a.length);
  };
  for (const value of values) add(value);
  const text = (s: string) => maskSecrets(s, secrets);
  return {
    get secrets() {
      return secrets;
    },
    text,
    value: <T>(value: T): T => (secrets.length === 0 ? value : maskJson(value, text)),
    add,
  };
}

function maskJson<T>(root: T, mask: (s: string) => string): T {
  if (typeof root === 'string') return mask(root) as T;
  if (typeof root !== 'object' || root === null) return root;
  const fresh = (v: object): Record<string, unknown> | unknown[] => (Array.isArray(v) ? new Array(v.length) : {});
  const out = fresh(root);
  const stack: [object, Record<string, unknown> | unknown[]][] = [[root, out]];
  while (stack.length > 0) {
    const [source, target] = stack.pop() as [object, Record<string, unknown> | unknown[]];
    for (const key of Object.keys(source)) {
      const v = (source as Record<string, unknown>)[key];
      let next: unknown = v;
      if (typeof v === 'string') next = mask(v);
      else if (typeof v === 'object' && v !== null) {
        next = fresh(v);
        stack.push([v, next as Record<string, unknown> | unknown[]]);
      }
      if (Array.isArray(target)) target[Number(key)] = next;
      else setOwn(target, mask(key), next);
    }
  }
  return out as T;
}
