/**
 * The placeholder grammar of MCP configs, in one place: `${NAME}`,
 * `${NAME:-default}` (Claude Code), `${env:NAME}`, `${input:id}` and the fixed
 * ones (`${cwd}`, `${workspaceFolder}`, `${userHome}`, … : VS Code, Cursor,
 * agt). Writes check configs with it (mcp-config.ts), launches expand with it
 * (variables.ts), output shows placeholders as written (secrets.ts).
 */

/** One placeholder; group 1 is its expression. Global: use with matchAll or replace. */
export const PLACEHOLDER = /\$\{([^}]*)\}/g;

/** An environment variable's name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The placeholders whose value the launch fixes (the config's cwd, the home directory, the path separator). */
export const FIXED_PLACEHOLDERS = [
  'cwd',
  'workspace',
  'workspaceFolder',
  'workspaceFolderBasename',
  'userHome',
  'pathSeparator',
  '/',
] as const;

/** A fixed placeholder's expression. */
export type FixedPlaceholder = (typeof FIXED_PLACEHOLDERS)[number];

/** True for a fixed placeholder's expression. */
export function isFixedPlaceholder(expression: string): expression is FixedPlaceholder {
  return (FIXED_PLACEHOLDERS as readonly string[]).includes(expression);
}

/** What an unsupported placeholder (`${command:…}`) gets, at write (a warning) and at launch (invalid_config) alike. */
export const UNSUPPORTED_PLACEHOLDER =
  'this placeholder is not supported, so the server cannot start until it is replaced: use ${NAME}, ${NAME:-default}, ${env:NAME}, ${input:id}, ${userHome}, ${cwd} or ${workspaceFolder}';

/** True when a placeholder is one of the supported forms (writes warn about the others). */
export function isSupportedPlaceholder(expression: string): boolean {
  if (isFixedPlaceholder(expression)) return true;
  if (expression.startsWith('env:')) return ENV_NAME.test(expression.slice(4));
  if (expression.startsWith('input:')) return expression.length > 6;
  const at = expression.indexOf(':-');
  return ENV_NAME.test(at === -1 ? expression : expression.slice(0, at));
}

/**
 * The warning for a remote config whose url or headers carry host
 * environment variables (`${NAME}`, `${NAME:-x}`, `${env:NAME}`): their values
 * leave this host for that server, which a reviewer should see without
 * `--show-secrets`. Undefined when it sends none.
 */
export function hostVariablesWarning(config: { url?: unknown; headers?: unknown }): string | undefined {
  if (typeof config.url !== 'string') return undefined;
  const names = new Set<string>();
  const values = [config.url, ...(typeof config.headers === 'object' && config.headers !== null ? Object.values(config.headers) : [])];
  for (const value of values) {
    if (typeof value !== 'string') continue;
    for (const m of value.matchAll(PLACEHOLDER)) {
      const expression = m[1] as string;
      if (isFixedPlaceholder(expression) || expression.startsWith('input:')) continue;
      const name = expression.startsWith('env:') ? expression.slice(4) : (expression.split(':-')[0] as string);
      if (ENV_NAME.test(name)) names.add(name);
    }
  }
  if (names.size === 0) return undefined;
  const target = config.url.split('?')[0] as string; // placeholders as written; their values are not shown
  return `this entry sends the host variables ${[...names].join(', ')} to ${target}; make sure that server should have them`;
}
