/**
 * Variables in MCP configs, as the hosts that write them define them, resolved
 * at launch — from the environment of the process that starts the server and
 * the declared inputs — and never stored resolved:
 *
 * | syntax | from | value |
 * | --- | --- | --- |
 * | `${cwd}`, `${workspace}`, `${workspaceFolder}` | agt, VS Code, Cursor | the config's `cwd` |
 * | `${workspaceFolderBasename}` | VS Code, Cursor | the last segment of `cwd` |
 * | `${userHome}` | VS Code, Cursor | the home directory |
 * | `${pathSeparator}`, `${/}` | VS Code, Cursor | `/` (POSIX), a backslash (Windows) |
 * | `${env:NAME}` | VS Code, Cursor | the environment variable (must be set) |
 * | `${NAME}`, `${NAME:-default}` | Claude Code | the environment variable, or the default when unset or empty |
 * | `${input:id}` | VS Code | a declared input's value (asked for, or `--input id=value`) |
 *
 * They apply to `command`, `args`, `env` values and `envFile` (stdio), and to
 * `url` and header values (remote). `cwd` is taken as written.
 */
import { ENV_NAME, type FixedPlaceholder, isFixedPlaceholder, PLACEHOLDER, UNSUPPORTED_PLACEHOLDER } from './placeholders.js';
import os from 'node:os';
import path from 'node:path';
import { AgtError } from '../errors.js';
import { defined, setOwn } from '../json.js';
import type { DeclaredInput, McpDocument } from './mcp-config.js';

/** Where values come from at launch. */
export interface VariableSources {
  /** The launching process's environment (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values of declared inputs (`${input:id}`), by id. */
  inputs?: Readonly<Record<string, string>>;
}

/** A placeholder that has no value now, with where it is and how to give it one. */
export interface UnresolvedVariable {
  placeholder: string;
  field: string;
  fix: string;
}

// What placeholders expand from: the config's cwd, the home directory, the sources.
interface ExpandContext {
  cwd?: string;
  home: string;
  sources: VariableSources;
  /** Receives every value taken from the environment or an input (not defaults or fixed ones): secrets to mask. */
  collect?: Set<string>;
}

// The value of each fixed placeholder (placeholders.ts names them: one list for expanding and checking).
const FIXED: Readonly<Record<FixedPlaceholder, (context: ExpandContext) => string | undefined>> = {
  cwd: (c) => c.cwd,
  workspace: (c) => c.cwd,
  workspaceFolder: (c) => c.cwd,
  workspaceFolderBasename: (c) => (c.cwd === undefined ? undefined : path.basename(c.cwd)),
  userHome: (c) => c.home,
  pathSeparator: () => path.sep,
  '/': () => path.sep,
};

function fixFor(expression: string): string {
  if (expression.startsWith('input:'))
    return `give the input: agt mcp probe … --input ${expression.slice(6)}=VALUE (or answer the prompt), or inputs: { "${expression.slice(6)}": … } in the host's code`;
  if (expression.startsWith('env:') && ENV_NAME.test(expression.slice(4))) {
    // VS Code's form has no default; the hint stays in the config's own syntax.
    return `set ${expression.slice(4)} in the environment of the process that starts the server`;
  }
  const name = expression;
  if (ENV_NAME.test(name)) return `set ${name} in the environment of the process that starts the server (or write \${${name}:-default})`;
  return UNSUPPORTED_PLACEHOLDER;
}

/** Expands the placeholders of one value; what has no value is left as written and listed in `unresolved`. */
function expandValue(value: string, field: string, context: ExpandContext, unresolved: UnresolvedVariable[]): string {
  const env = context.sources.env ?? process.env;
  const inputs = context.sources.inputs ?? {};
  return value.replace(PLACEHOLDER, (whole, expression: string) => {
    let resolved: string | undefined;
    let variable = true; // from the environment or an input, not written in the config
    if (isFixedPlaceholder(expression)) {
      resolved = FIXED[expression](context);
      variable = false;
    } else if (expression.startsWith('env:')) resolved = env[expression.slice(4)];
    else if (expression.startsWith('input:')) resolved = inputs[expression.slice(6)];
    else {
      const at = expression.indexOf(':-');
      const name = at === -1 ? expression : expression.slice(0, at);
      // As in the shell: `:-` also takes the default when the variable is set but empty.
      variable = !(at !== -1 && (env[name] ?? '') === '');
      if (ENV_NAME.test(name)) resolved = variable ? env[name] : expression.slice(at + 2);
    }
    if (resolved !== undefined && variable) context.collect?.add(resolved);
    if (resolved !== undefined) return resolved;
    unresolved.push({ placeholder: whole, field, fix: fixFor(expression) });
    return whole;
  });
}

/** The `${input:id}` ids a value refers to. */
export function inputIds(values: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const value of values) for (const m of value.matchAll(PLACEHOLDER)) if (m[1]?.startsWith('input:')) ids.add(m[1].slice(6));
  return [...ids];
}

/** The strings of a server config that placeholders may appear in (command, args, env, envFile, url, headers). */
export function configStrings(config: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const field of ['command', 'url', 'envFile']) if (typeof config[field] === 'string') out.push(config[field] as string);
  if (Array.isArray(config.args)) for (const a of config.args) if (typeof a === 'string') out.push(a);
  for (const field of ['env', 'headers']) {
    const map = config[field];
    if (typeof map === 'object' && map !== null) for (const v of Object.values(map)) if (typeof v === 'string') out.push(v);
  }
  return out;
}

/** A server config with its placeholders expanded, and those that could not be. */
export function resolveServerConfig<C extends Record<string, unknown>>(
  config: C,
  sources: VariableSources,
  home: string,
  at = 'config',
  collect?: Set<string>,
): { config: C; unresolved: UnresolvedVariable[] } {
  const unresolved: UnresolvedVariable[] = [];
  const cwd = typeof config.cwd === 'string' ? config.cwd : undefined;
  const context = { ...defined({ cwd }), home, sources, ...defined({ collect }) };
  const one = (value: unknown, field: string) =>
    typeof value === 'string' ? expandValue(value, `${at}.${field}`, context, unresolved) : value;
  const map = (value: unknown, field: string) => {
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, one(v, `${field}.${k}`)); // "__proto__" stays an own key
    return out;
  };
  const out: Record<string, unknown> = { ...config };
  for (const field of ['command', 'url', 'envFile']) if (field in config) out[field] = one(config[field], field);
  if (Array.isArray(config.args)) out.args = config.args.map((a, i) => one(a, `args[${i}]`));
  for (const field of ['env', 'headers']) if (field in config) out[field] = map(config[field], field);
  return { config: out as C, unresolved };
}

/**
 * A config as it launches now: placeholders expanded, or invalid_config
 * (`unresolved_variables`) naming each one without a value. `collect`
 * receives the values taken from the environment and inputs (to be masked).
 */
export function launchConfig<C extends object>(
  config: C,
  sources: VariableSources,
  action: 'started' | 'connected',
  collect?: Set<string>,
): C {
  const { config: resolved, unresolved } = resolveServerConfig(config as Record<string, unknown>, sources, os.homedir(), 'config', collect);
  if (unresolved.length > 0) {
    throw new AgtError(
      'invalid_config',
      `the config cannot be ${action} yet: ${unresolved.map((u) => `${u.field}: ${u.placeholder} has no value; ${u.fix}`).join(' | ')}`,
      {
        details: {
          reason: 'unresolved_variables',
          problems: unresolved.map((u) => ({ field: u.field, message: `${u.placeholder} has no value`, fix: u.fix })),
        },
      },
    );
  }
  return resolved as C;
}

/** The inputs a server config refers to (`${input:id}`), each as `declared` describes it (or a plain promptString). */
export function inputsUsedBy(config: Readonly<Record<string, unknown>>, declared: readonly DeclaredInput[] = []): DeclaredInput[] {
  return inputIds(configStrings(config)).map((id) => declared.find((i) => i.id === id) ?? { id, type: 'promptString' });
}

/** The inputs a document's server refers to (`${input:id}`), with what the document declares about each. */
export function documentInputs(document: McpDocument): DeclaredInput[] {
  const config = Object.values(document.mcpServers)[0];
  return config === undefined ? [] : inputsUsedBy({ ...config }, document.inputs);
}
