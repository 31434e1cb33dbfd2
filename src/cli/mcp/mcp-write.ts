/** `agt mcp create|add` and `agt mcp update`: a server's config from flags, `-- COMMAND ARGS…` or a file. */
import { oneLine } from '../../outside-text.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgtError } from '../../errors.js';
import { defined, isPlainObject, setOwn } from '../../json.js';
import { parseJsonc } from '../../config/jsonc.js';
import { emitWritten, missingCommands, type Told } from './command-warning.js';
import { type CliContext, cliWrite, EXIT, inCli, mcpReference, revisionFlag } from '../context.js';
import { keyValues, milliseconds, readConfigFile } from '../files.js';
import { SANDBOX_OPTIONS, sandboxFromFlags, sandboxGiven } from './sandbox-flags.js';

/** An invocation of one `agt mcp` verb: its own arguments and what came after `--`. */
export interface McpInvocation {
  verb: string;
  args: string[];
  command?: string[];
  /** What agt says of the command line itself (its flags after `--`): with the write's other warnings. */
  told?: readonly Told[];
}

// `claude mcp add` habits: -e KEY=V, -H "K: V", --transport http|sse|stdio.
const CONFIG_OPTIONS = {
  command: { type: 'string' },
  arg: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  env: { type: 'string', multiple: true, short: 'e' },
  'env-file': { type: 'string' },
  timeout: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true, short: 'H' },
  transport: { type: 'string' },
  from: { type: 'string' },
  ...SANDBOX_OPTIONS,
} as const;

const TRANSPORTS: Record<string, string | undefined> = {
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  sse: 'sse',
  stdio: undefined,
};

type ConfigValues = ReturnType<typeof parse>['values'];

function parse(args: string[]) {
  const parsed = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { ...CONFIG_OPTIONS, 'expected-revision': { type: 'string' }, 'unset-env': { type: 'string', multiple: true } },
  });
  const { values, positionals } = parsed;
  if (values.transport !== undefined && !Object.hasOwn(TRANSPORTS, values.transport)) {
    throw new AgtError('invalid_input', '--transport must be http (streamable-http), sse or stdio');
  }
  // `claude mcp add --transport http NAME URL`: a URL after the name is --url.
  if (positionals.length === 2 && values.url === undefined && /^https?:\/\//i.test(positionals[1] as string)) {
    values.url = positionals.pop() as string;
  }
  if (values.transport === 'stdio')
    delete values.transport; // the default for a command
  else if (values.transport !== undefined) values.transport = TRANSPORTS[values.transport] as string;
  return parsed;
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
    const sandbox = sandboxFromFlags(values);
    if (sandbox !== undefined) out.sandbox = sandbox;
  } else if (values.transport !== undefined) out.transport = values.transport;
  return out;
}

function rejectMisplaced(values: ConfigValues, stdio: boolean): void {
  const wrong = stdio
    ? (['header', 'transport'] as const)
    : (['cwd', 'env', 'env-file', 'arg', 'sandbox', 'allow-write', 'allow-domain'] as const);
  const given = wrong.filter((k) => values[k] !== undefined);
  if (given.length > 0)
    throw new AgtError(
      'invalid_input',
      `${given.map((k) => `--${k}`).join(', ')} ${given.length === 1 ? 'applies' : 'apply'} to ${stdio ? 'remote' : 'stdio'} servers only`,
    );
}

/** The document the flags describe, or undefined when they name no command, URL or file. */
async function documentFrom(reference: string, values: ConfigValues, after: string[] | undefined): Promise<unknown> {
  const sources = [
    values.command !== undefined && '--command',
    values.url !== undefined && '--url',
    values.from !== undefined && '--from',
    after !== undefined && '-- COMMAND',
  ].filter((s): s is string => typeof s === 'string');
  if (sources.length > 1)
    throw new AgtError('invalid_input', `give one of --command, --url, --from or -- COMMAND ARGS…, not ${sources.join(' and ')}`);
  const name = reference.split('/')[1] ?? 'server';
  if (values.from !== undefined) {
    const given = (Object.keys(CONFIG_OPTIONS) as (keyof typeof CONFIG_OPTIONS)[]).filter((k) => k !== 'from' && values[k] !== undefined);
    if (given.length > 0)
      throw new AgtError(
        'invalid_input',
        `--from takes the whole config from the file; drop ${given.map((k) => `--${k}`).join(', ')} (or edit the file)`,
      );
    return readConfigFile(values.from);
  }
  if (values.url !== undefined) {
    rejectMisplaced(values, false);
    return {
      mcpServers: { [name]: { url: values.url, headers: keyValues(values.header, ':', '--header'), ...fieldFlags(values, false) } },
    };
  }
  let command = values.command;
  let args = values.arg ?? [];
  if (after !== undefined) {
    if (after.length === 0)
      throw new AgtError(
        'invalid_input',
        'nothing after --: give the command and its arguments, e.g. -- npx -y @modelcontextprotocol/server-memory',
      );
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
  if (!positionals[0] || positionals.length > 1) {
    throw new AgtError(
      'invalid_input',
      `usage: agt mcp ${invocation.verb} <category/name> (--command C [--arg A]… | -- COMMAND ARGS…) --cwd DIR, or --url U, or --from FILE  (agt mcp create --help)`,
    );
  }
  if (values['expected-revision'] !== undefined)
    throw new AgtError(
      'invalid_input',
      '--expected-revision applies to `agt mcp update`; a create expects that the server is not registered yet',
    );
  if (values['unset-env'] !== undefined) throw new AgtError('invalid_input', '--unset-env applies to `agt mcp update`');
  const reference = mcpReference(positionals[0]);
  const data = await documentFrom(reference, values, invocation.command);
  if (data === undefined)
    throw new AgtError(
      'invalid_input',
      'give the server: --command C (or -- COMMAND ARGS…) for stdio, --url U for remote, or --from FILE.json',
    );
  return register(ctx, reference, data, values.from === undefined, invocation.told ?? []);
}

/** `agt mcp add-json <ref> JSON`: one server's config as JSON (`claude mcp add-json`), or a whole `{ "mcpServers": … }` document. */
export async function addJsonCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { cwd: { type: 'string' } } });
  if (positionals.length !== 2)
    throw new AgtError(
      'invalid_input',
      `usage: agt mcp add-json <name> '{"command": "npx", "args": ["-y", "pkg"]}' [--cwd DIR]  (agt mcp add-json --help)`,
    );
  const reference = mcpReference(positionals[0] as string);
  let parsed: unknown;
  try {
    parsed = parseJsonc(positionals[1] as string);
  } catch {
    throw new AgtError(
      'invalid_input',
      'the JSON argument is not valid JSON; quote it for the shell: \'{"command": "npx", "args": ["-y", "pkg"]}\'',
    );
  }
  if (!isPlainObject(parsed))
    throw new AgtError('invalid_input', 'the JSON argument must be an object: one server\'s config, or { "mcpServers": { … } }');
  const name = reference.split('/')[1] as string;
  const document = isPlainObject(parsed.mcpServers) ? parsed : { mcpServers: { [name]: parsed } };
  const [key, config] = Object.entries(document.mcpServers as Record<string, unknown>)[0] ?? [];
  if (key !== undefined && isPlainObject(config) && values.cwd !== undefined)
    (document.mcpServers as Record<string, unknown>)[key] = { ...config, cwd: path.resolve(values.cwd) };
  return register(ctx, reference, document, true, []);
}

// Writes a new server; a stdio one without a cwd gets the current folder, said in the output (R3: stored absolute).
async function register(ctx: CliContext, reference: string, data: unknown, inferCwd: boolean, told: readonly Told[]): Promise<number> {
  const notes: string[] = [];
  const servers = isPlainObject(data) && isPlainObject(data.mcpServers) ? data.mcpServers : {};
  for (const [key, config] of Object.entries(servers)) {
    if (inferCwd && isPlainObject(config) && typeof config.command === 'string' && config.cwd === undefined) {
      setOwn(servers, key, { ...config, cwd: process.cwd() });
      notes.push(`cwd: ${process.cwd()} (the current folder; give --cwd DIR for another)`);
    }
  }
  const written = await cliWrite(ctx, { kind: 'mcp', reference, create: true, data });
  const { record } = written;
  const head = [oneLine`registered ${record.reference} (revision ${record.revision})`, ...notes];
  emitWritten(ctx, written, head, [...told, ...missingCommands(record.reference, record.data)]);
  return EXIT.ok;
}

/**
 * `agt mcp update <ref> …`: with a command, URL or file the config is
 * replaced; otherwise the given fields change (`--env K=V` adds or replaces one
 * variable, `--header` one header, `--arg`s replace the args).
 */
export async function updateCommand(invocation: McpInvocation, ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(invocation.args);
  if (!positionals[0] || positionals.length > 1)
    throw new AgtError(
      'invalid_input',
      'usage: agt mcp update <category/name> (the flags of create) [--expected-revision N]  (agt mcp update --help)',
    );
  const reference = mcpReference(positionals[0]);
  const expected = revisionFlag(values['expected-revision']);
  let data = await documentFrom(reference, values, invocation.command);
  let revision = expected;
  if (data === undefined || values.from === undefined) {
    // Patches only what is given: a new command or URL keeps the stored cwd, env, envFile, headers and timeout.
    const current = await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference);
    data = data === undefined ? patched(current.data, values) : keptFields(current.data, data, values);
    revision = expected ?? current.revision; // a change applies to what was read, or not at all
  }
  const written = await cliWrite(ctx, { kind: 'mcp', reference, data, ...defined({ expectedRevision: revision }) });
  const { record } = written;
  // Only an update that sets the command (a new command or file) is checked: a changed env leaves it as it was.
  const setsCommand = values.command !== undefined || invocation.command !== undefined || values.from !== undefined;
  const told = [...(invocation.told ?? []), ...(setsCommand ? missingCommands(record.reference, record.data) : [])];
  emitWritten(ctx, written, [oneLine`updated ${record.reference} (revision ${record.revision})`], told);
  return EXIT.ok;
}

// A document's one server as plain fields, to edit: a stored document was checked when written, a new one is built
// from the flags, and the service checks the edited one again when it is written.
function onlyServer(document: unknown): { document: Record<string, unknown>; name: string; config: Record<string, unknown> } {
  const [name, config] =
    isPlainObject(document) && isPlainObject(document.mcpServers) ? (Object.entries(document.mcpServers)[0] ?? []) : [];
  if (!isPlainObject(document) || name === undefined || !isPlainObject(config))
    throw new AgtError('invalid_input', 'the config has no server in mcpServers');
  return { document, name, config };
}

// What a replacing update (a new command or URL) keeps of the stored config: the fields not given again.
function keptFields(current: unknown, next: unknown, values: ConfigValues): Record<string, unknown> {
  const { document, config: stored } = onlyServer(current);
  const { name, config: given } = onlyServer(next);
  const merged: Record<string, unknown> = { ...given };
  const keep = (field: string, flag: unknown) => {
    if (flag === undefined && stored[field] !== undefined) merged[field] = stored[field];
  };
  if ('command' in stored && 'command' in given) {
    keep('cwd', values.cwd);
    keep('env', values.env);
    keep('envFile', values['env-file']);
    keep('sandbox', sandboxGiven(values) ? true : undefined);
  } else if ('url' in stored && 'url' in given) {
    keep('headers', values.header);
    keep('transport', values.transport);
  }
  keep('handshakeTimeoutMs', values.timeout);
  // What was kept above is not applied again as flags: only the replacing command or URL and its own fields are.
  const unset = { env: undefined, header: undefined, arg: undefined, cwd: undefined, 'env-file': undefined, timeout: undefined };
  const unsetSandbox = { sandbox: undefined, 'allow-write': undefined, 'allow-domain': undefined };
  return patched({ ...document, mcpServers: { [name]: merged } }, { ...values, ...unset, ...unsetSandbox, transport: undefined }, true);
}

function patched(edited: unknown, values: ConfigValues, replacing = false): Record<string, unknown> {
  const { document, name, config } = onlyServer(edited);
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
  for (const key of values['unset-env'] ?? []) {
    const env = isPlainObject(next.env) ? { ...next.env } : {};
    if (!Object.hasOwn(env, key)) throw new AgtError('invalid_input', `--unset-env ${key}: the stored config has no such env variable`);
    delete env[key];
    next.env = env;
  }
  if (!replacing && Object.keys(next).every((k) => next[k] === config[k])) {
    throw new AgtError(
      'invalid_input',
      'nothing to change: give the fields to change (--env K=V, --cwd DIR, --timeout MS, …) or a new --command, --url or --from  (agt mcp update --help)',
    );
  }
  return { ...document, mcpServers: { [name]: next } };
}
