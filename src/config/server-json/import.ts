/**
 * Importing a server as the MCP Registry publishes it: a `server.json`
 * (schema 2025-09-29 to 2025-12-11, or the registry API's `{ server: … }`)
 * becomes an MCP config document. A package is started the way its registry's
 * runtime runs it (npm → `npx -y name@version`, PyPI → `uvx name==version`,
 * OCI → `docker run -i --rm image:tag`, NuGet → `dnx name@version --yes`); a
 * remote is its URL with its headers. Like every registration it only writes
 * configuration: nothing is installed, downloaded or started here.
 */
import { isAbsolute } from 'node:path';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import { type McpDocument, normaliseMcpDocument, writtenDocument } from '../mcp-config.js';
import { type InputScope, listField, objectField, serverJsonError, stringField } from './inputs.js';
import { packageLaunch } from './packages.js';
import { remoteConfig, shownUrl } from './remotes.js';

/** The schema versions of server.json this release reads (camelCase fields). */
export const SERVER_JSON_SCHEMAS: readonly string[] = Object.freeze(['2025-09-29', '2025-10-11', '2025-10-17', '2025-12-11']);

/** Options of {@link importServerJson}. */
export interface ServerJsonImportOptions {
  /** Take the package of this registry type (`npm`, `pypi`, `oci`, `nuget`); default: the first package agt can start, else the first remote. */
  packageType?: string;
  /** Take a remote instead of a package: `true` (the first), its transport type, or its index in `remotes`. */
  remote?: boolean | number | 'streamable-http' | 'sse';
  /** Absolute working directory of a package's process (R3); needed when a package is taken. */
  cwd?: string;
}

/** What the import took from the file. */
export type ServerJsonSource =
  | { kind: 'package'; registryType: string; identifier: string; version?: string }
  | { kind: 'remote'; type: 'streamable-http' | 'sse'; url: string };

/** A server.json as an MCP config document, with what it was made from. */
export interface ServerJsonImport {
  /** The server's registry name (`io.github.owner/server`), as one line. */
  name: string;
  /** A reference name for it: the part after the slash, lower-cased, in reference characters. */
  suggestedName: string;
  document: McpDocument;
  source: ServerJsonSource;
  /** The other ways the file offers (`npm @scope/pkg@1.0.0`, `remote sse https://…`), to take with the options. */
  alternatives: string[];
  /** What the user should know: defaults written, inputs asked for at launch, keys not understood. */
  warnings: string[];
}

/** True when a parsed file looks like a server.json (or the registry API's `{ server: … }`): a name and packages or remotes. */
export function isServerJson(file: unknown): boolean {
  const server = isPlainObject(file) && isPlainObject(file.server) ? file.server : file;
  return isPlainObject(server) && typeof server.name === 'string' && (Array.isArray(server.packages) || Array.isArray(server.remotes));
}

// The schema version its `$schema` names; undefined when it names none (the registry API's answers carry none).
function schemaVersion(server: Record<string, unknown>, warnings: string[]): void {
  const schema = stringField(server.$schema, '$schema');
  if (schema === undefined) {
    warnings.push(`no "$schema": read as ${SERVER_JSON_SCHEMAS.at(-1)}`);
    return;
  }
  const version = /\/schemas\/([^/]+)\/server\.schema\.json$/.exec(schema)?.[1];
  if (version !== undefined && SERVER_JSON_SCHEMAS.includes(version)) return;
  const older = version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version < (SERVER_JSON_SCHEMAS[0] as string);
  throw serverJsonError(
    '$schema',
    older
      ? `schema ${version} is older than ${SERVER_JSON_SCHEMAS[0]} (snake_case fields); use the file its publisher publishes now`
      : `"${outsideText(schema, { max: 120 })}" is not a server.json schema this release reads (${SERVER_JSON_SCHEMAS.join(', ')})`,
    'unsupported_schema',
    { supported: [...SERVER_JSON_SCHEMAS] },
  );
}

const SNAKE = ['registry_type', 'version_detail', 'environment_variables', 'package_arguments', 'transport_type'];

function hasSnakeCase(server: Record<string, unknown>): boolean {
  const entries = [
    server,
    ...(Array.isArray(server.packages) ? server.packages : []),
    ...(Array.isArray(server.remotes) ? server.remotes : []),
  ];
  return entries.some((e) => isPlainObject(e) && SNAKE.some((k) => Object.hasOwn(e, k)));
}

/** What one entry of `packages` or `remotes` is, in a line (for `alternatives` and errors). */
function describeEntry(entry: unknown, kind: 'package' | 'remote'): string {
  if (!isPlainObject(entry)) return `${kind} (not an object)`;
  const text =
    kind === 'package'
      ? `${outsideText(entry.registryType, { max: 40 })} ${outsideText(entry.identifier, { max: 100 })}${typeof entry.version === 'string' ? `@${entry.version}` : ''}`
      : `remote ${outsideText(entry.type, { max: 40 })} ${typeof entry.url === 'string' ? shownUrl(entry.url) : outsideText(entry.url)}`;
  return outsideText(text, { max: 160 });
}

// Which entry to take: the options', else the first package agt starts, else the first remote.
function choose(packages: unknown[], remotes: unknown[], options: ServerJsonImportOptions): { kind: 'package' | 'remote'; index: number } {
  const { remote, packageType } = options;
  if (remote !== undefined && remote !== false) {
    const index =
      typeof remote === 'number'
        ? Number.isInteger(remote) && remote >= 0 && remote < remotes.length
          ? remote
          : -1
        : remote === true
          ? remotes.length > 0
            ? 0
            : -1
          : remotes.findIndex((r) => isPlainObject(r) && r.type === remote);
    if (index < 0)
      throw serverJsonError(
        'remotes',
        `has no remote${remote === true ? '' : ` ${outsideText(remote, { max: 40 })}`} to take (it has ${remotes.length}${remotes.length > 0 ? `: ${remotes.map((r) => describeEntry(r, 'remote')).join('; ')}` : ''})`,
        'no_such_remote',
      );
    return { kind: 'remote', index };
  }
  if (packageType !== undefined) {
    const index = packages.findIndex((p) => isPlainObject(p) && p.registryType === packageType);
    if (index < 0)
      throw serverJsonError(
        'packages',
        `has no ${outsideText(packageType, { max: 40 })} package; it has: ${packages.map((p) => describeEntry(p, 'package')).join('; ') || 'none'}`,
        'no_such_package',
      );
    return { kind: 'package', index };
  }
  const startable = packages.findIndex(
    (p) => isPlainObject(p) && typeof p.registryType === 'string' && ['npm', 'pypi', 'oci', 'nuget'].includes(p.registryType),
  );
  if (startable >= 0) return { kind: 'package', index: startable };
  if (remotes.length > 0) return { kind: 'remote', index: 0 };
  if (packages.length > 0) return { kind: 'package', index: 0 }; // its own error says why it cannot be started
  throw serverJsonError('packages', 'the file has neither "packages" nor "remotes": nothing to register', 'nothing_to_import');
}

/** A reference name from a registry name: after the slash, lower-cased, in reference characters. */
function suggested(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1);
  const cleaned = last
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64);
  return cleaned === '' ? 'server' : cleaned;
}

/**
 * Turns a parsed `server.json` into an MCP config document (one server, its
 * inputs declared). invalid_input, naming the field and a `reason`, for an
 * unknown schema version, registry type, runtime or transport, a malformed
 * entry, or a value that holds `${`.
 */
export function importServerJson(json: unknown, options: ServerJsonImportOptions = {}): ServerJsonImport {
  if (!isPlainObject(json)) throw serverJsonError('file', 'must hold a JSON object (a server.json)', 'not_an_object');
  const server = isPlainObject(json.server) ? json.server : json;
  const rawName = stringField(server.name, 'name');
  if (rawName === undefined || rawName === '') throw serverJsonError('name', 'is missing: a server.json names its server', 'missing_name');
  if (hasSnakeCase(server))
    throw serverJsonError(
      'file',
      `uses snake_case fields (schema 2025-07-09); use the file its publisher publishes now (${SERVER_JSON_SCHEMAS.at(-1)})`,
      'unsupported_schema',
      {
        supported: [...SERVER_JSON_SCHEMAS],
      },
    );
  const warnings: string[] = [];
  schemaVersion(server, warnings);
  const packages = listField(server.packages, 'packages');
  const remotes = listField(server.remotes, 'remotes');
  const chosen = choose(packages, remotes, options);
  const scope: InputScope = { declared: new Map(), warnings };
  const field = `${chosen.kind === 'package' ? 'packages' : 'remotes'}[${chosen.index}]`;
  const entry = objectField((chosen.kind === 'package' ? packages : remotes)[chosen.index], field);
  let config: Record<string, unknown>;
  let source: ServerJsonSource;
  if (chosen.kind === 'package') {
    if (options.cwd === undefined || !isAbsolute(options.cwd))
      throw new AgtError(
        'invalid_input',
        'server.json: a package is started in a working directory: give cwd, an absolute path (agt mcp import … --cwd DIR)',
        {
          details: { field: 'cwd', reason: 'cwd_required' },
        },
      );
    const launch = packageLaunch(entry, field, scope);
    config = {
      command: launch.command,
      args: launch.args,
      cwd: options.cwd,
      ...(Object.keys(launch.env).length > 0 ? { env: launch.env } : {}),
    };
    source = launch.source;
  } else {
    const remote = remoteConfig(entry, field, scope);
    config = remote.config;
    source = remote.source;
  }
  const alternatives = [
    ...packages.map((p, i) => (chosen.kind === 'package' && i === chosen.index ? undefined : describeEntry(p, 'package'))),
    ...remotes.map((r, i) => (chosen.kind === 'remote' && i === chosen.index ? undefined : describeEntry(r, 'remote'))),
  ].filter((a): a is string => a !== undefined);
  const suggestedName = suggested(rawName);
  const inputs = [...scope.declared.values()];
  const normalised = normaliseMcpDocument({ mcpServers: { [suggestedName]: config }, ...(inputs.length > 0 ? { inputs } : {}) });
  warnings.push(...normalised.warnings);
  const document = writtenDocument(normalised);
  if (document === undefined) throw serverJsonError('cwd', 'the config has no working directory', 'cwd_required'); // cwd was checked above
  return { name: outsideText(rawName, { max: 200 }), suggestedName, document, source, alternatives, warnings };
}
