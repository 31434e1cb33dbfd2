/**
 * The inputs of a `server.json` (MCP Registry, schema 2025-09-29 to
 * 2025-12-11) as config values: an environment variable, a header, an
 * argument or one of their `{variables}`. A fixed `value` is written as it is
 * (its `{name}` variables filled in); a required or secret input becomes a
 * `${input:id}` variable, declared with its description and asked for at
 * launch; an optional one with a default (never a secret's) is written with
 * that default; an optional one without is left out. No value of the file is
 * ever read as one of this host's placeholders: a `${` in it, or put together
 * from its `{variables}` (`{a}{HOME}` with a = "$"), is refused.
 */
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import { isSecretName } from '../../secret-rule.js';
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
// A variable of a value: an input of its own, without variables of its own.
const VARIABLE_KEYS = INPUT_KEYS.filter((k) => k !== 'variables');
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

// `{name}` in a fixed value: each name the input's `variables` map declares, as an input of its own. A variable's
// own `variables` are not read (the schema gives a variable none): no recursion, and no value built of values built.
function fillVariables(value: string, input: Record<string, unknown>, field: string, scope: InputScope, at = `${field}.value`): string {
  if (input.variables === undefined) return value;
  const variables = objectField(input.variables, `${field}.variables`);
  const names = Object.keys(variables);
  if (names.length > SERVER_JSON_LIMITS.entries)
    throw serverJsonError(`${field}.variables`, `holds more than ${SERVER_JSON_LIMITS.entries} entries`, 'too_large');
  // The value with each `${input:…}` this import made as one NUL: whatever `${` is left was put together from literals.
  let masked = '';
  let last = 0;
  const filled = value.replace(/\{([^{}]+)\}/g, (whole, name: string, offset: number) => {
    masked += value.slice(last, offset);
    last = offset + whole.length;
    if (!Object.hasOwn(variables, name)) {
      masked += whole; // the schema: a name not in `variables` stays as written
      return whole;
    }
    const at = `${field}.variables.${outsideText(name, { max: 40 })}`;
    const variable = objectField(variables[name], at);
    unknownKeys(variable, VARIABLE_KEYS, at, scope);
    const part = inputValue({ ...variable, variables: undefined }, name, at, scope, true) ?? whole;
    masked += part.includes('${') ? '\0' : part; // a literal holds no `${` (refused): only a made placeholder does
    return part;
  });
  masked += value.slice(last);
  if (masked.includes('${'))
    throw serverJsonError(
      at,
      'its variables put together make "${", which agt would expand from this host\'s environment at launch; server.json values are literal',
      'placeholder_in_value',
    );
  if (filled.length > SERVER_JSON_LIMITS.chars)
    throw serverJsonError(at, `is longer than ${SERVER_JSON_LIMITS.chars} characters with its variables filled in`, 'too_large');
  return filled;
}

// An input id for `idSource`, declared once: an id already declared for another input (another description, or one a
// secret and the other not) is not shared — a name must not carry a secret's value into another field (a URL) or
// unmask its prompt — so the later one gets `id_2`, `id_3`, ….
function declare(scope: InputScope, idSource: string, input: Record<string, unknown>, field: string, optional: boolean): string {
  const secret = input.isSecret === true;
  const base = inputId(idSource);
  const wanted = { type: 'promptString' as const, description: description(input, idSource, field), ...(secret ? { password: true } : {}) };
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}_${n}`;
    const existing = scope.declared.get(id);
    if (existing === undefined) {
      if (secret && optional)
        scope.warnings.push(
          `${field}: an optional secret, asked for at launch as \${input:${id}}; remove it with agt mcp update if you do not use it`,
        );
      scope.declared.set(id, { id, ...wanted });
      return id;
    }
    if (existing.description === wanted.description && (existing.password === true) === secret) return id;
  }
}

// A default shown in a warning, unless it is a header's value or its name looks like a secret's.
function shownDefault(value: string, idSource: string, field: string): string {
  if (field.includes('.headers[') || isSecretName(idSource.replace(/^-+/, ''))) return '';
  return ` "${outsideText(value, { max: 80 })}"`;
}

/** A remote's URL with its `{variables}` filled in (schema 2025-12-11); invalid_input naming `FIELD.url` for a `${`. */
export function urlValue(url: string, variables: unknown, field: string, scope: InputScope): string {
  return fillVariables(literal(url, `${field}.url`), { variables }, field, scope, `${field}.url`);
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
    scope.warnings.push(`${field}: written with its default${shownDefault(value, idSource, field)}; change it with agt mcp update`);
    return value;
  }
  if (!secret && !required && !needed) return undefined;
  return `\${input:${declare(scope, idSource, input, field, secret && !required && !needed)}}`;
}
