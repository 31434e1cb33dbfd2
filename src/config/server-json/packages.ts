/**
 * A server.json package as a stdio launch: the command its registry's runtime
 * runs it with, the arguments (runtime's, the package, the package's) and the
 * environment. Only the runtimes each registry type names are taken (a
 * `runtimeHint` is a command, so it is never taken as given), and package
 * names and versions must look like their registry's: a name that starts with
 * `-` would be read as a flag.
 */
import { setOwn } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import { ENV_NAME } from '../placeholders.js';
import {
  type InputScope,
  inputValue,
  KNOWN_KEYS,
  listField,
  literal,
  unknownKeys,
  objectField,
  serverJsonError,
  stringField,
} from './inputs.js';
import { changesRuntime, runtimeArgumentWarnings } from './runtime-args.js';

/** A package's launch and what it was made from. */
export interface PackageLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  source: { kind: 'package'; registryType: string; identifier: string; version?: string };
}

interface Runtime {
  /** The runtimes this registry type may name; the first is the default. */
  commands: readonly string[];
  /** What the package is called on the command line. */
  spec(identifier: string, version: string | undefined): string;
  identifier: RegExp;
}

const RUNTIMES: Readonly<Record<string, Runtime>> = {
  npm: {
    commands: ['npx', 'bunx'],
    spec: (id, v) => (v ? `${id}@${v}` : id),
    identifier: /^(@[A-Za-z0-9][\w.~-]*\/)?[A-Za-z0-9][\w.~-]*$/,
  },
  pypi: { commands: ['uvx'], spec: (id, v) => (v ? `${id}==${v}` : id), identifier: /^[A-Za-z0-9]([\w.-]*[A-Za-z0-9])?$/ },
  oci: { commands: ['docker', 'podman'], spec: (id) => id, identifier: /^[A-Za-z0-9][\w./:@-]*$/ },
  nuget: { commands: ['dnx'], spec: (id, v) => (v ? `${id}@${v}` : id), identifier: /^[A-Za-z0-9_][\w.-]*$/ },
};
const VERSION = /^[A-Za-z0-9][\w.+-]{0,127}$/;

function transportOf(entry: Record<string, unknown>, field: string): void {
  if (entry.transport === undefined) return; // the oldest files: stdio
  const transport = objectField(entry.transport, `${field}.transport`);
  if (transport.type === 'stdio') return;
  if (transport.type === 'streamable-http' || transport.type === 'sse')
    throw serverJsonError(
      `${field}.transport`,
      `this package serves MCP over ${transport.type} once started: start it yourself and register its URL (agt mcp add NAME URL), or take one of the file's remotes`,
      'unsupported_transport',
    );
  throw serverJsonError(
    `${field}.transport.type`,
    `"${outsideText(transport.type, { max: 40 })}" is not a transport agt knows (stdio, streamable-http, sse)`,
    'unsupported_transport',
  );
}

/** The command-line arguments of a list of server.json arguments (positional and named). */
function argumentsOf(list: unknown, field: string, scope: InputScope): string[] {
  const out: string[] = [];
  for (const [i, raw] of listField(list, field).entries()) {
    const at = `${field}[${i}]`;
    const arg = objectField(raw, at);
    if (arg.type === 'positional') {
      const hint = stringField(arg.valueHint, `${at}.valueHint`);
      // Some published files mark a fixed word as { valueHint, isFixed: true } (not in the schema): the word is the value.
      const fixed = arg.isFixed === true && arg.value === undefined && hint !== undefined;
      unknownKeys(arg, fixed ? [...KNOWN_KEYS.positional, 'isFixed'] : KNOWN_KEYS.positional, at, scope);
      const value = inputValue(fixed ? { ...arg, value: hint } : arg, hint ?? `arg${i}`, at, scope);
      if (value === undefined) scope.warnings.push(`${at}: optional, with no value or default: left out`);
      else out.push(value);
      continue;
    }
    if (arg.type !== 'named')
      throw serverJsonError(
        `${at}.type`,
        `"${outsideText(arg.type, { max: 40 })}" is not an argument type (positional, named)`,
        'unknown_argument_type',
      );
    unknownKeys(arg, KNOWN_KEYS.named, at, scope);
    const name = stringField(arg.name, `${at}.name`);
    if (name === undefined || !/^-{1,2}[A-Za-z0-9][\w.-]*$/.test(name))
      throw serverJsonError(`${at}.name`, 'a named argument is a flag: "-x" or "--name"', 'bad_argument_name');
    if (arg.format === 'boolean') {
      const on = arg.value ?? arg.default ?? (arg.isRequired === true ? 'true' : undefined);
      if (on === 'true') out.push(name);
      continue;
    }
    const value = inputValue(arg, name, at, scope);
    if (value !== undefined) out.push(name, value);
  }
  return out;
}

function environment(list: unknown, field: string, scope: InputScope): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [i, raw] of listField(list, field).entries()) {
    const at = `${field}[${i}]`;
    const variable = objectField(raw, at);
    unknownKeys(variable, KNOWN_KEYS.keyValue, at, scope);
    const name = stringField(variable.name, `${at}.name`);
    if (name === undefined || !ENV_NAME.test(name))
      throw serverJsonError(`${at}.name`, 'must be an environment variable name (letters, digits, _)', 'bad_variable_name');
    const value = inputValue(variable, name, at, scope);
    if (value === undefined) continue;
    setOwn(env, name, value); // "__proto__" is a name like any other
    if (changesRuntime(name))
      scope.warnings.push(`${at}: sets ${name}, which changes how the runtime starts; check it before the first launch`);
  }
  return env;
}

// docker/podman: `run -i --rm`, each variable passed in by name (-e NAME: the value stays in the environment), then the image.
// `-e NAME=${input:…}` would put the value on the command line (any local user sees it in `ps`): the value goes into
// the environment instead, and `-e NAME` passes it by name.
function withoutInlineInputs(args: string[], env: Record<string, string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i] as string;
    const next = args[i + 1];
    const pair =
      (flag === '-e' || flag === '--env') && next !== undefined ? /^([A-Za-z_][A-Za-z0-9_]*)=(.*\$\{input:.*)$/s.exec(next) : null;
    if (pair === null || Object.hasOwn(env, pair[1] as string)) {
      out.push(flag);
      continue;
    }
    setOwn(env, pair[1] as string, pair[2] as string);
    i++;
  }
  return out;
}

function containerArgs(
  runtimeArgs: string[],
  image: string,
  identifier: string,
  env: Record<string, string>,
  packageArgs: string[],
): string[] {
  const base = withoutInlineInputs(runtimeArgs[0] === 'run' ? runtimeArgs.slice(1) : ['-i', '--rm', ...runtimeArgs], env);
  const passed = Object.keys(env).flatMap((name) => ['-e', name]);
  // A file whose runtime arguments already name the image (without its tag) gets it once, tagged.
  const named = base.findIndex((a) => a === identifier || a === image || a === identifier.replace(/:[^/:]+$/, ''));
  if (named >= 0) return ['run', ...passed, ...base.slice(0, named), image, ...base.slice(named + 1), ...packageArgs];
  return ['run', ...passed, ...base, image, ...packageArgs];
}

/** The stdio launch of one server.json package; invalid_input for a registry type, runtime, name or transport agt cannot take. */
export function packageLaunch(entry: Record<string, unknown>, field: string, scope: InputScope): PackageLaunch {
  const registryType = stringField(entry.registryType, `${field}.registryType`);
  if (registryType === 'mcpb')
    throw serverJsonError(
      `${field}.registryType`,
      'an MCP bundle (mcpb) is a file to download and unpack, which agt does not do: install it, then register its command (agt mcp add)',
      'unsupported_registry_type',
    );
  const runtime = registryType === undefined ? undefined : RUNTIMES[registryType];
  if (runtime === undefined || !Object.hasOwn(RUNTIMES, registryType as string))
    throw serverJsonError(
      `${field}.registryType`,
      `"${outsideText(registryType, { max: 40 })}" is not a registry type agt starts (${Object.keys(RUNTIMES).join(', ')})`,
      'unsupported_registry_type',
    );
  transportOf(entry, field);
  unknownKeys(entry, KNOWN_KEYS.package, field, scope);
  const identifier = stringField(entry.identifier, `${field}.identifier`);
  if (identifier !== undefined) literal(identifier, `${field}.identifier`);
  if (identifier === undefined || !runtime.identifier.test(identifier) || identifier.length > 214)
    throw serverJsonError(`${field}.identifier`, `is not a ${registryType} package name`, 'bad_identifier');
  const version = stringField(entry.version, `${field}.version`);
  if (version !== undefined) literal(version, `${field}.version`);
  if (version !== undefined && !VERSION.test(version)) throw serverJsonError(`${field}.version`, 'is not a version (1.2.3)', 'bad_version');
  if (version === undefined && registryType !== 'oci')
    scope.warnings.push(`${field}: no version: the runtime takes the newest at each start`);
  if (version === 'latest') scope.warnings.push(`${field}: version "latest": the runtime takes the newest at each start`);
  const hint = stringField(entry.runtimeHint, `${field}.runtimeHint`);
  if (hint !== undefined && !runtime.commands.includes(hint))
    throw serverJsonError(
      `${field}.runtimeHint`,
      `"${outsideText(hint, { max: 40 })}" is not a runtime agt runs ${registryType} packages with (${runtime.commands.join(', ')})`,
      'unsupported_runtime',
    );
  const command = hint ?? (runtime.commands[0] as string);
  const runtimeArgs = argumentsOf(entry.runtimeArguments, `${field}.runtimeArguments`, scope);
  scope.warnings.push(...runtimeArgumentWarnings(command, runtimeArgs, `${field}.runtimeArguments`));
  const packageArgs = argumentsOf(entry.packageArguments, `${field}.packageArguments`, scope);
  const env = environment(entry.environmentVariables, `${field}.environmentVariables`, scope);
  const source = {
    kind: 'package' as const,
    registryType: registryType as string,
    identifier,
    ...(version !== undefined ? { version } : {}),
  };
  if (registryType === 'oci') {
    const tagged = /[:@][^/]*$/.test(identifier) || version === undefined ? identifier : `${identifier}:${version}`;
    return { command, args: containerArgs(runtimeArgs, tagged, identifier, env, packageArgs), env, source };
  }
  const spec = runtime.spec(identifier, version);
  // npx asks before it installs, on the stdin that is the server's MCP channel: it is told yes.
  const yes = command === 'npx' && !runtimeArgs.includes('-y') && !runtimeArgs.includes('--yes') ? ['-y'] : [];
  if (registryType === 'nuget')
    return { command, args: [...runtimeArgs, spec, '--yes', ...(packageArgs.length > 0 ? ['--', ...packageArgs] : [])], env, source };
  return { command, args: [...yes, ...runtimeArgs, spec, ...packageArgs], env, source };
}
