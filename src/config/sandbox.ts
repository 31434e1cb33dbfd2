/**
 * The `sandbox` of a stdio config (P5): `true`, or the sandbox runtime's own
 * rules `{ filesystem?: { allowWrite, denyWrite, denyRead, allowRead },
 * network?: { allowedDomains, deniedDomains } }`. Checked at write, in the
 * static test (P1) and at launch alike; resolved at launch into absolute paths
 * with the defaults of `true` filled in (write only in `cwd` and a private temp
 * folder, read all but the usual secret places, no network). An object adds to
 * those defaults; `allowRead` re-opens a default `denyRead`. Paths are shown in
 * messages (they hold no secrets, user names at most), escaped as outside text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { outsideText } from '../outside-text.js';
import { PLACEHOLDER } from './placeholders.js';
import { type KnownKeys, unknownKeys } from './unknown-keys.js';

export { missingSandboxPieces, sandboxMissing, type MachineFacts, type MissingPiece } from './sandbox-machine.js';

/** A sandbox's rules as a config writes them (the runtime's own field names). */
export interface SandboxConfig {
  filesystem?: { allowWrite?: string[]; denyWrite?: string[]; denyRead?: string[]; allowRead?: string[] };
  network?: { allowedDomains?: string[]; deniedDomains?: string[] };
}

/** The sandbox a launch uses: every path absolute (relative to cwd, ${cwd}/${workspace} expanded), defaults filled in. */
export interface ResolvedSandbox {
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[]; allowRead: string[] };
  network: { allowedDomains: string[]; deniedDomains: string[] };
}

/** A problem with a config's sandbox: a ConfigProblem (mcp-config.ts imports this module, so it is not imported here). */
export interface SandboxProblem {
  field: string;
  message: string;
  fix: string;
}

// How many entries one sandbox list may hold, and how long one entry (a path or a domain) may be.
const MAX_SANDBOX_ENTRIES = 64;
const MAX_SANDBOX_ENTRY = 4096;

const PATH_LISTS = ['allowWrite', 'denyWrite', 'denyRead', 'allowRead'] as const;
const DOMAIN_LISTS = ['allowedDomains', 'deniedDomains'] as const;
type PathList = (typeof PATH_LISTS)[number];
type DomainList = (typeof DOMAIN_LISTS)[number];

/** The keys a `sandbox` object may hold (unknown keys are refused: a misspelled deny would deny nothing). */
export const SANDBOX_KEYS: KnownKeys = {
  keys: ['filesystem', 'network'],
  nested: { filesystem: { keys: PATH_LISTS }, network: { keys: DOMAIN_LISTS } },
};

/** The fields of a stdio config this module reads: ours, and VS Code's `sandboxEnabled` (folded into `sandbox`). */
export const SANDBOX_FIELDS: readonly string[] = Object.freeze(['sandbox', 'sandboxEnabled']);

/** The secret places `true` denies reading (under the home directory); `allowRead` re-opens one. */
export const SECRET_PLACES: readonly string[] = Object.freeze(['.ssh', '.aws', '.gnupg', '.config/gcloud']);
/** The secret files `true` denies reading under `cwd` (patterns). */
export const SECRET_FILES: readonly string[] = Object.freeze(['**/.env', '**/.env.*']);

// The placeholders a sandbox path may use: they expand to the config's cwd or the home directory (R4).
const PATH_PLACEHOLDERS: Readonly<Record<string, 'cwd' | 'home'>> = {
  cwd: 'cwd',
  workspace: 'cwd',
  workspaceFolder: 'cwd',
  userHome: 'home',
};
const GLOB = /[*?[\]{}]/;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const DOMAIN = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)*${LABEL}(?::(\\d{1,5}))?$`);
const FIX_DOMAIN = 'write a host name like "api.example.com" or "*.example.com", with an optional ":443"; no scheme, path or bare "*"';

function problem(field: string, message: string, fix: string): SandboxProblem {
  return { field, message, fix };
}

/**
 * What is wrong with a config's `sandbox`, if anything: on a remote config any
 * `sandbox` at all; on a stdio config a shape other than `true`, `false` or
 * the known rules, and entries that are not bounded paths or domain names.
 */
export function sandboxProblems(config: object, at = 'config'): SandboxProblem[] {
  const { sandbox: value, sandboxEnabled } = config as { sandbox?: unknown; sandboxEnabled?: unknown };
  const field = `${at}.sandbox`;
  if (!('command' in config)) {
    if (value === undefined && sandboxEnabled !== true) return [];
    return [
      problem(
        value === undefined ? `${at}.sandboxEnabled` : field,
        'a remote server is not a process of ours: "sandbox" applies to stdio servers only',
        'remove "sandbox"; limit a remote server with its own settings',
      ),
    ];
  }
  if (value === undefined || value === true || value === false) return [];
  if (!isPlainObject(value))
    return [
      problem(field, 'must be true or an object { "filesystem"?: { … }, "network"?: { … } }', 'write "sandbox": true for the defaults'),
    ];
  const problems: SandboxProblem[] = unknownKeys(value, SANDBOX_KEYS, field).map((u) =>
    problem(`${field}.${u.key}`, u.message, u.closest === undefined ? 'remove it' : `rename it to "${u.closest}"`),
  );
  for (const part of ['filesystem', 'network'] as const) {
    const inner = value[part];
    if (inner !== undefined && !isPlainObject(inner))
      problems.push(problem(`${field}.${part}`, 'must be an object', 'give an object or leave it out'));
  }
  const filesystem = isPlainObject(value.filesystem) ? value.filesystem : {};
  const network = isPlainObject(value.network) ? value.network : {};
  for (const list of PATH_LISTS)
    problems.push(...listProblems(filesystem[list], `${field}.filesystem.${list}`, (p, f) => pathProblem(p, f, list)));
  for (const list of DOMAIN_LISTS) problems.push(...listProblems(network[list], `${field}.network.${list}`, domainProblem));
  return problems;
}

function listProblems(
  value: unknown,
  field: string,
  check: (entry: string, field: string) => SandboxProblem | undefined,
): SandboxProblem[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    return [problem(field, 'must be a list of strings', 'give a list like ["…"] or leave it out')];
  if (value.length > MAX_SANDBOX_ENTRIES)
    return [
      problem(field, `holds ${value.length} entries; at most ${MAX_SANDBOX_ENTRIES}`, 'name common parent folders or wildcards instead'),
    ];
  const out: SandboxProblem[] = [];
  for (const [i, entry] of (value as string[]).entries()) {
    const at = `${field}[${i}]`;
    if (entry.length > MAX_SANDBOX_ENTRY) out.push(problem(at, `is longer than ${MAX_SANDBOX_ENTRY} characters`, 'shorten it'));
    else {
      const found = check(entry, at);
      if (found !== undefined) out.push(found);
    }
  }
  return out;
}

function pathProblem(entry: string, field: string, list: PathList): SandboxProblem | undefined {
  const shown = `"${outsideText(entry, { max: 200 })}"`;
  if (entry.trim() === '') return problem(field, 'is empty', 'give a path, or "." for the cwd');
  if (entry.includes('\0')) return problem(field, `${shown} holds a NUL character`, 'remove it');
  for (const m of entry.matchAll(PLACEHOLDER)) {
    if (!Object.hasOwn(PATH_PLACEHOLDERS, m[1] as string))
      return problem(
        field,
        `${shown}: sandbox paths expand only \${cwd}, \${workspace}, \${workspaceFolder} and \${userHome}`,
        'write the path itself',
      );
  }
  if (/^~[^/\\]/.test(entry))
    return problem(field, `${shown}: only "~/…" (your home) is understood, not "~user"`, 'write the absolute path');
  if (entry.split(/[/\\]/).includes('..'))
    return problem(
      field,
      `${shown} contains ".."`,
      'write the path without "..": an absolute path, or one relative to "cwd" that stays inside it',
    );
  const write = list === 'allowWrite' || list === 'denyWrite';
  const expanded = expandPath(entry, '/cwd', '/home'); // placeholders out of the way of the pattern checks
  if (list === 'allowWrite' && (expanded === '/' || expanded === '/home'))
    return problem(
      field,
      `${shown} is the root or the home folder: a sandbox that may write there protects nothing`,
      'name a folder inside it',
    );
  if (write && GLOB.test(expanded.replace(/\/\*\*$/, '')))
    return problem(field, `${shown}: write rules take literal paths (on Linux a pattern there is skipped)`, 'name the folder itself');
  const first = expanded.split('/')[1] ?? '';
  if (!write && GLOB.test(first))
    return problem(
      field,
      `${shown}: a pattern needs a literal folder to start from (on Linux it is skipped otherwise)`,
      'start it with a folder, e.g. "${cwd}/**/*.pem"',
    );
  return undefined;
}

function domainProblem(entry: string, field: string): SandboxProblem | undefined {
  const shown = `"${outsideText(entry, { max: 200 })}"`;
  if (entry === '*' || entry.startsWith('*:'))
    return problem(field, `${shown} would match every host`, 'leave allowedDomains empty for no network; name hosts otherwise');
  if (/^\*\.[^.]+$/.test(entry))
    return problem(field, `${shown} would match every host under a top-level domain`, 'name the site: "*.example.com"');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.includes('/'))
    return problem(field, `${shown} is not a host name (a scheme or a path)`, FIX_DOMAIN);
  const m = DOMAIN.exec(entry);
  const port = m?.[1] === undefined ? undefined : Number(m[1]);
  if (m === null || entry.length > 260 || (port !== undefined && (port < 1 || port > 65535)))
    return problem(field, `${shown} is not a host name`, FIX_DOMAIN);
  return undefined;
}

// `${cwd}`-style placeholders, `~/` and relative paths to an absolute, normalised path (no trailing separator).
function expandPath(entry: string, cwd: string, home: string): string {
  let out = entry.replace(PLACEHOLDER, (whole, name: string) =>
    PATH_PLACEHOLDERS[name] === 'cwd' ? cwd : PATH_PLACEHOLDERS[name] === 'home' ? home : whole,
  );
  if (out === '~' || out.startsWith('~/')) out = home + out.slice(1);
  const resolved = path.resolve(cwd, out);
  return resolved.length > 1 ? resolved.replace(/[/\\]+$/, '') : resolved;
}

/**
 * The `sandbox` a normalised stdio config keeps, VS Code's `sandboxEnabled` folded in: `true` keeps its `sandbox`
 * rules (or `true`), `false` drops them with a warning (VS Code applies them only when enabled), `sandbox: false`
 * is no sandbox. A malformed `sandbox` is kept as written: the launch rules refuse it with the field and the fix.
 */
export function sandboxFields(
  raw: Record<string, unknown>,
  at: string,
  warnings: string[],
  invalid: (field: string, message: string) => Error,
): { sandbox?: true | SandboxConfig } {
  const enabled = raw.sandboxEnabled;
  const sandbox = raw.sandbox as true | SandboxConfig | false | undefined; // its shape: sandboxProblems
  if (enabled !== undefined && typeof enabled !== 'boolean') throw invalid(`${at}.sandboxEnabled`, 'must be true or false');
  if (enabled === false) {
    if (sandbox !== undefined && sandbox !== false)
      warnings.push(`${at}.sandbox: dropped: "sandboxEnabled" is false, and (as in VS Code) its rules apply only when it is true`);
    return {};
  }
  if (enabled === true) {
    if (sandbox === false) throw invalid(`${at}.sandbox`, 'is false, which contradicts "sandboxEnabled": true');
    return { sandbox: sandbox ?? true };
  }
  return sandbox === undefined || sandbox === false ? {} : { sandbox };
}

/** True when a config asks for a sandbox (`true` or an object; `false` and absent ask for none). */
export function wantsSandbox(config: { sandbox?: unknown }): boolean {
  return config.sandbox !== undefined && config.sandbox !== false;
}

// A writable root of `/`, the user's home folder or a folder above it would let the server rewrite the user's
// dotfiles (and so escape at the next login): refused, for the cwd (writable by default) and allowWrite alike.
function refuseWideWrites(cwd: string, allowWrite: string[]): void {
  const homeDir = realOrSelf(path.resolve(os.homedir())); // the user's own (a server's HOME may well be its cwd)
  const under = (p: string) => p === path.parse(p).root || homeDir === p || homeDir.startsWith(p.endsWith(path.sep) ? p : p + path.sep);
  const wide = (p: string) => under(p) || under(realOrSelf(p)); // a symlink to home is home (bwrap binds its target)
  const field = wide(cwd) ? 'config.cwd' : allowWrite.some(wide) ? 'config.sandbox.filesystem.allowWrite' : undefined;
  if (field === undefined) return;
  const what = field === 'config.cwd' ? `the cwd "${outsideText(cwd, { max: 200 })}" (writable in a sandbox)` : 'an allowWrite entry';
  throw new AgtError(
    'invalid_config',
    `${field}: ${what} is (or links to) the root, the home folder or a folder above it; a sandbox that may write there protects nothing; set cwd (or the entry) to a project folder`,
    { details: { reason: 'invalid_sandbox', field } },
  );
}

// The path with its symlinks followed, or itself when it does not exist (yet).
function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** undefined when the config asks for no sandbox; throws invalid_config naming the field when malformed. */
export function resolveSandbox(
  config: { sandbox?: unknown; cwd: string },
  home: string = os.homedir(),
  tmpDir: string = os.tmpdir(),
): ResolvedSandbox | undefined {
  if (!wantsSandbox(config)) return undefined;
  const problems = sandboxProblems({ sandbox: config.sandbox, command: '' }, 'config');
  if (problems.length > 0) {
    const text = problems.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ');
    throw new AgtError('invalid_config', `the sandbox cannot be used as written: ${text}`, {
      details: { reason: 'invalid_sandbox', field: problems[0]?.field, problems },
    });
  }
  const rules = config.sandbox === true ? {} : (config.sandbox as SandboxConfig);
  const given = (list: PathList) => (rules.filesystem?.[list] ?? []).map((p) => expandPath(p, config.cwd, home));
  refuseWideWrites(path.resolve(config.cwd), given('allowWrite'));
  const domains = (list: DomainList) => [...new Set((rules.network?.[list] ?? []).map((d) => d.toLowerCase()))];
  const unique = (list: string[]) => [...new Set(list)];
  return {
    filesystem: {
      allowWrite: unique([path.resolve(config.cwd), path.resolve(tmpDir), ...given('allowWrite')]),
      denyWrite: unique(given('denyWrite')),
      denyRead: unique([
        ...SECRET_PLACES.map((p) => path.join(home, p)),
        ...SECRET_FILES.map((p) => path.join(path.resolve(config.cwd), p)),
        ...given('denyRead'),
      ]),
      allowRead: unique(given('allowRead')),
    },
    network: { allowedDomains: domains('allowedDomains'), deniedDomains: domains('deniedDomains') },
  };
}
