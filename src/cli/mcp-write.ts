/** `agt mcp create|add` and `agt mcp update`: a server's config from flags, `-- COMMAND ARGS…` or a file. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import { isPlainObject, setOwn } from '../json.js';
import type { McpDocument } from '../resources/mcp-config.js';
import { type CliContext, cliWrite, emit, EXIT, inCli, revisionFlag, shown } from './context.js';
import { keyValues, milliseconds, readConfigFile } from './files.js';

/** An invocation of one `agt mcp` verb: its own arguments and what came after `--`. */
export interface McpInvocation {
  verb: string;
  args: string[];
  command?: string[];
}

const CONFIG_OPTIONS = {
  command: { type: 'string' }, arg: { type: 'string', multiple: true }, cwd: { type: 'string' },
  env: { type: 'string', multiple: true }, 'env-file': { type: 'string' }, timeout: { type: 'string' },
  url: { type: 'string' }, header: { type: 'string', multiple: true }, transport: { type: 'string' }, from: { type: 'string' },
} as const;

type ConfigValues = ReturnType<typeof parse>['values'];

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: { ...CONFIG_OPTIONS, 'expected-revision': { type: 'string' } } });
}

// The flags that change one field of a config (the same for stdio and remote where they apply).
function fieldFlags(values: ConfigValues, stdio: boolean): Record<string, unknown> {
  const timeout = milliseconds(values.timeout, '--timeout');
  const out: Record<string, unknown> = {};
  if (timeout !== undefined) out.handshakeTimeoutMs = timeout;
  if (stdio) {
    if (values.cwd !== undefined) out.cwd = path.resolve(values.cwd);
    if (values['env-file'] !== undefined) out.envFile = path.resolve(values['env-file']);
    if (values.arg !== undefined) out.args = values.arg;
  } else if (values.transport !== undefined) out.transport = values.transport;
  return out;
}

function rejectMisplaced(values: ConfigValues, stdio: boolean): void {
  const wrong = stdio ? (['header', 'transport'] as const) : (['cwd', 'env', 'env-file', 'arg'] as const);
  const given = wrong.filter((k) => values[k] !== undefined);
  if (given.length > 0) throw new AgtError('invalid_input', `${given.map((k) => `--${k}`).join(', ')} ${given.length === 1 ? 'applies' : 'apply'} to ${stdio ? 'remote' : 'stdio'} servers only`);
}

/** The document the flags describe, or undefined when they name no command, URL or file. */
async function documentFrom(reference: string, values: ConfigValues, after: string[] | undefined): Promise<unknown> {
  const sources = [values.command !== undefined && '--command', values.url !== undefined && '--url', values.from !== undefined && '--from', after !== undefined && '-- COMMAND'].filter((s): s is string => typeof s === 'string');
  if (sources.length > 1) throw new AgtError('invalid_input', `give one of --command, --url, --from or -- COMMAND ARGS…, not ${sources.join(' and ')}`);
  const name = reference.split('/')[1] ?? 'server';
  if (values.from !== undefined) {
    const given = (Object.keys(CONFIG_OPTIONS) as (keyof typeof CONFIG_OPTIONS)[]).filter((k) => k !== 'from' && values[k] !== undefined);
    if (given.length > 0) throw new AgtError('invalid_input', `--from takes the whole config from the file; drop ${given.map((k) => `--${k}`).join(', ')} (or edit the file)`);
    return readConfigFile(values.from);
  }
  if (values.url !== undefined) {
    rejectMisplaced(values, false);
    return { mcpServers: { [name]: { url: values.url, headers: keyValues(values.header, ':', '--header'), ...fieldFlags(values, false) } } };
  }
  let command = values.command;
  let args = values.arg ?? [];
  if (after !== undefined) {
    if (after.length === 0) throw new AgtError('invalid_input', 'nothing after --: give the command and its arguments, e.g. -- npx -y @modelcontextprotocol/server-memory');
    if (values.arg !== undefined) throw new AgtError('invalid_input', 'give the arguments after -- or as --arg, not both');
    [command, ...args] = after as [string, ...string[]];
  }
  if (command === undefined) return undefined;
  rejectMisplaced(values, true);
  return { mcpServers: { [name]: { command, env: keyValues(values.env, '=', '--env'), ...fieldFlags(values, true), args } } };
}

/** `agt mcp create <ref> …` (alias `add`). */
export async function createCommand(invocation: McpInvocation, ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(invocation.args);
  const reference = positionals[0];
  if (!reference || positionals.length > 1) {
    throw new AgtError('invalid_input', `usage: agt mcp ${invocation.verb} <category/name> (--command C [--arg A]… | -- COMMAND ARGS…) --cwd DIR, or --url U, or --from FILE  (agt mcp create --help)`);
  }
  if (values['expected-revision'] !== undefined) throw new AgtError('invalid_input', '--expected-revision applies to `agt mcp update`; a create expects that the server is not registered yet');
  const data = await documentFrom(reference, values, invocation.command);
  if (data === undefined) throw new AgtError('invalid_input', 'give the server: --command C (or -- COMMAND ARGS…) for stdio, --url U for remote, or --from FILE.json');
  const { record, warnings } = await cliWrite(ctx, { kind: 'mcp', reference, create: true, data });
  emit(ctx, { record: shown(ctx, record), warnings }, () => [`registered ${record.reference} (revision ${record.revision})`, ...warnings.map((w) => `warning: ${w}`)].join('\n'));
  return EXIT.ok;
}

/**
 * `agt mcp update <ref> …`: with a command, URL or file the config is
 * replaced; otherwise the given fields change (`--env K=V` adds or replaces one
 * variable, `--header` one header, `--arg`s replace the args).
 */
export async function updateCommand(invocation: McpInvocation, ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(invocation.args);
  const reference = positionals[0];
  if (!reference || positionals.length > 1) throw new AgtError('invalid_input', 'usage: agt mcp update <category/name> (the flags of create) [--expected-revision N]  (agt mcp update --help)');
  const expected = revisionFlag(values['expected-revision']);
  let data = await documentFrom(reference, values, invocation.command);
  let revision = expected;
  if (data === undefined) {
    const current = await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference);
    data = patched(current.data as McpDocument, values);
    revision = expected ?? current.revision; // a field change applies to what was read, or not at all
  }
  const { record, warnings } = await cliWrite(ctx, { kind: 'mcp', reference, data, ...(revision === undefined ? {} : { expectedRevision: revision }) });
  emit(ctx, { record: shown(ctx, record), warnings }, () => [`updated ${record.reference} (revision ${record.revision})`, ...warnings.map((w) => `warning: ${w}`)].join('\n'));
  return EXIT.ok;
}

function patched(document: McpDocument, values: ConfigValues): McpDocument {
  const [name, config] = Object.entries(document.mcpServers)[0] as unknown as [string, Record<string, unknown>];
  const stdio = 'command' in config;
  rejectMisplaced(values, stdio);
  const next: Record<string, unknown> = { ...config, ...fieldFlags(values, stdio) };
  const merge = (field: string, list: string[] | undefined, sep: string, flag: string) => {
    if (list === undefined) return;
    const map: Record<string, unknown> = isPlainObject(config[field]) ? { ...config[field] } : {};
    for (const [k, v] of Object.entries(keyValues(list, sep, flag))) setOwn(map, k, v);
    next[field] = map;
  };
  merge('env', values.env, '=', '--env');
  merge('headers', values.header, ':', '--header');
  if (Object.keys(next).every((k) => next[k] === config[k])) {
    throw new AgtError('invalid_input', 'nothing to change: give the fields to change (--env K=V, --cwd DIR, --timeout MS, …) or a new --command, --url or --from  (agt mcp update --help)');
  }
  return { ...document, mcpServers: { [name]: next as unknown as McpDocument['mcpServers'][string] } };
}
