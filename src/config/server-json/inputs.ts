/**
 * The inputs of a `server.json` (MCP Registry, schema 2025-09-29 to
 * 2025-12-11) as config values: an environment variable, a header, an
 * argument or one of their `{variables}`. A fixed `value` is written as it is
 * (its `{name}` variables filled in); a required or secret input becomes a
 * `${input:id}` variable, declared with its description and asked for at
 * launch; an optional one with a default (never a secret's) is written with
 * that default; an optional one without is left out. No value of the file is
 * ever read as one of this host's placeholders: a `${` in it is refused.
 */
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import type { DeclaredInput } from '../mcp-config.js';

/** The most entries of a list (packages, remotes, arguments, variables…) and characters of a string a server.json may hold here. */
export const SERVER_JSON_LIMITS = Object.freeze({ entries: 100, chars: 8_192 });

/** Where a server.json's inputs are gathered while its config is built. */
export interface InputScope {
  /** The `${input:id}` variables the config refers to, by id. */
  readonly declared: Map<string, DeclaredInput>;
  /** What the user should know (defaults written, optional inputs left out). */
  readonly warnings: string[];
}

/** invalid_input about the server.json, naming the field and the reason. */
export function serverJsonError(field: string, message: string, reason: string, extra: Record<string, unknown> = {}): AgtError {
  return new AgtError('invalid_input', `server.json: ${field}: ${message}`, { details: { field, reason, ...extra } });
}

/** A string field of the file, bounded; undefined when absent; invalid_input when not a string or too long. */
export function stringField(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw serverJsonError(field, 'must be a string', 'not_a_string');
  if (value.length > SERVER_JSON_LIMITS.chars)
    throw serverJsonError(field, `is longer than ${SERVER_JSON_LIMITS.chars} characters`, 'too_large');
  return value;
}

/** A list field of the file (absent: empty), bounded in length. */
export function listField(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw serverJsonError(field, 'must be a list', 'not_a_list');
  if (value.length > SERVER_JSON_LIMITS.entries)
    throw serverJsonError(field, `holds more than ${SERVER_JSON_LIMITS.entries} entries`, 'too_large');
  return value;
}

/** An object field of the file (an entry of a list, a variables map). */
export function objectField(value: unknown, field: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw serverJsonError(field, 'must be an object', 'not_an_object');
  return value;
}

/**
 * A literal of the file, refused when it holds `${`: it would be expanded from this host's environment at launch (a
 * header could carry a host secret to the server's owner).
 */
export function literal(value: string, field: string): string {
  if (value.includes('${'))
    throw serverJsonError(
      field,
      'holds "${", which agt would expand from this host\'s environment at launch; server.json values are literal (a file with ${VERSION}-style templates must be filled in first)',
      'placeholder_in_value',
    );
  return value;
}

const INPUT_KEYS = ['description', 'isRequired', 'format', 'value', 'isSecret', 'default', 'placeholder', 'choices', 'variables'];
/** The keys each kind of entry may have (schema 2025-12-11); others are reported, never read. */
export const KNOWN_KEYS = Object.freeze({
  input: INPUT_KEYS,
  positional: [...INPUT_KEYS, 'type', 'valueHint', 'isRepeated'],
  named: [...INPUT_KEYS, 'type', 'name', 'isRepeated'],
  keyValue: [...INPUT_KEYS, 'name'],
  package: [
    'registryType',
    'registryBaseUrl',
    'identifier',
    'version',
    'fileSha256',
    'runtimeHint',
    'transport',
    'runtimeArguments',
    'packageArguments',
    'environmentVariables',
  ],
  remote: ['type', 'url', 'headers', 'variables'],
});

/** Warns about the keys of an entry the schema does not define (the first eight, each cut and escaped). */
export function unknownKeys(entry: Record<string, unknown>, known: readonly string[], at: string, scope: InputScope): void {
  const unknown = Object.keys(entry).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const named = unknown
    .slice(0, 8)
    .map((k) => `"${outsideText(k, { max: 40 })}"`)
    .join(', ');
  scope.warnings.push(
    `${at}: ${named}${unknown.length > 8 ? ` and ${unknown.length - 8} more` : ''} not in the server.json schema: ignored`,
  );
}

/** An input id made of the characters a `${input:id}` keeps readable: letters, digits, `_`, `.`, `-`. */
export function inputId(raw: string): string {
  const id = raw
    .replace(/^-+/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .slice(0, 64);
  return id === '' ? 'value' : id;
}

// The description the prompt shows: one line, bounded, with the choices the file names.
function description(input: Record<string, unknown>, label: string, field: string): string {
  const own = stringField(input.description, `${field}.description`);
  const choices = listField(input.choices, `${field}.choices`).filter((c): c is string => typeof c === 'string');
  const text = `${own ?? label}${choices.length > 0 ? ` (one of: ${choices.join(', ')})` : ''}`;
  return outsideText(text, { max: 200 });
}

// `{name}` in a fixed value: each name the input's `variables` map declares, as an input of its own.
function fillVariables(value: string, input: Record<string, unknown>, field: string, scope: InputScope): string {
  if (input.variables === undefined) return value;
  const variables = objectField(input.variables, `${field}.variables`);
  const names = Object.keys(variables);
  if (names.length > SERVER_JSON_LIMITS.entries)
    throw serverJsonError(`${field}.variables`, `holds more than ${SERVER_JSON_LIMITS.entries} entries`, 'too_large');
  return value.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(variables, name)) return whole; // the schema: a name not in `variables` stays as written
    const variable = objectField(variables[name], `${field}.variables.${name}`);
    return inputValue(variable, name, `${field}.variables.${name}`, scope, true) ?? whole;
  });
}

/**
 * One input's value in the config: its fixed value, a `${input:id}` variable,
 * its default, or undefined (an optional input with nothing to give: left out).
 * `needed`: the value is part of another (a variable): never left out.
 */
export function inputValue(
  input: Record<string, unknown>,
  idSource: string,
  field: string,
  scope: InputScope,
  needed = false,
): string | undefined {
  const fixed = stringField(input.value, `${field}.value`);
  if (fixed !== undefined) return fillVariables(literal(fixed, `${field}.value`), input, field, scope);
  const secret = input.isSecret === true;
  const required = input.isRequired === true;
  const fallback = stringField(input.default, `${field}.default`);
  if (!secret && fallback !== undefined) {
    const value = literal(fallback, `${field}.default`);
    scope.warnings.push(`${field}: written with its default "${outsideText(value, { max: 80 })}"; change it with agt mcp update`);
    return value;
  }
  if (!secret && !required && !needed) return undefined;
  const id = inputId(idSource);
  if (secret && !required && !needed && !scope.declared.has(id))
    scope.warnings.push(
      `${field}: an optional secret, asked for at launch as \${input:${id}}; remove it with agt mcp update if you do not use it`,
    );
  if (!scope.declared.has(id))
    scope.declared.set(id, {
      id,
      type: 'promptString',
      description: description(input, idSource, field),
      ...(secret ? { password: true } : {}),
    });
  return `\${input:${id}}`;
}
