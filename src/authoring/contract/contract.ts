/**
 * Contract tests (C1, C3): cases derived from a tool's published schema plus
 * the author's examples, run against the *running* server over its real
 * transport through connectMcp. The client-side registry is never consulted
 * while running, so a passing contract proves the server's own parsing and
 * business rules, not a client check.
 */
import { AgtError, isAgtError, readToolError } from '../../errors.js';
import type { ConnectOptions } from '../../mcp/connect.js';
import type { ProtocolEra } from '../../mcp/settings/era.js';
import type { McpDocument, McpServerConfig } from '../../config/mcp-config.js';
import { defined, isPlainObject } from '../../json.js';
import { ToolSchemaRegistry } from '../../schema/registry.js';
import { MAX_SCHEMA_PROPERTIES } from '../../bounds.js';
import { connectInEra, erasOf } from '../eras.js';
import type { McpConnection } from '../../mcp/connection.js';
import { type AppCheck, checkToolApp } from './app-check.js';

/** What a case expects: success, or a tool error with this code. */
export type ContractExpectation = { ok: true } | { code: string };

/** One contract case. */
export interface ContractCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** Sent as the request's `_meta` (e.g. `{ caller: 'alice' }`). */
  meta?: Record<string, unknown>;
  expect: ContractExpectation;
}

/** A tool as contractCases needs it: a defined tool, or a tool as a server lists it. */
export interface ContractTool {
  name: string;
  inputSchema: unknown;
}

/** The author's part of a contract. */
export interface ContractInput {
  /** Valid arguments; the first is the base for derived cases. */
  valid: Record<string, unknown>[];
  /** `_meta` sent with the valid examples and the derived cases (e.g. `{ caller: 'alice' }`). */
  meta?: Record<string, unknown>;
  /**
   * Derive valid boundary cases too (default true). Set false for tools whose
   * calls change state: derived invalid cases never reach the handler, valid
   * ones would.
   */
  validBoundaries?: boolean;
  businessErrors?: { name: string; args: Record<string, unknown>; meta?: Record<string, unknown>; code: string }[];
}

const registry = new ToolSchemaRegistry();
const INVALID = { code: 'invalid_arguments' };
// Whether a case is valid is all a case needs to know: the validator stops at the first problem.
const VALIDITY_ONLY = { maxIssues: 1 };
// A schema may be a server's (agt mcp check): what it asks for is bounded before anything is built from it. The
// generator's own tuning (a boundary case past it is skipped, nothing is refused), so it stays here.
const MAX_BOUNDARY = 65_536;

type Props = Record<string, Record<string, unknown>>;

/** Derives cases: missing required fields, wrong types, boundaries just inside and outside, enums, plus the author's cases. */
export function contractCases(tool: ContractTool, input: ContractInput): ContractCase[] {
  const schema = isPlainObject(tool.inputSchema) ? tool.inputSchema : {};
  const compiled = registry.compile(schema, { tool: tool.name });
  const base = input.valid[0];
  if (base === undefined) throw new AgtError('invalid_input', `contractCases(${tool.name}): give at least one valid example`);
  const meta = input.meta ? { meta: input.meta } : {};
  const cases: ContractCase[] = input.valid.map((args, i) => ({
    name: `valid example ${i + 1}`,
    tool: tool.name,
    args,
    ...meta,
    expect: { ok: true },
  }));
  const props = (isPlainObject(schema.properties) ? schema.properties : {}) as Props;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const derived: ContractCase[] = [];
  const with_ = (key: string, value: unknown) => ({ ...base, [key]: value });
  for (const key of required.slice(0, MAX_SCHEMA_PROPERTIES)) {
    const { [key]: _dropped, ...rest } = base;
    derived.push({ name: `missing required "${key}"`, tool: tool.name, args: rest, expect: INVALID });
  }
  for (const [key, prop] of Object.entries(props).slice(0, MAX_SCHEMA_PROPERTIES)) {
    const wrong = wrongTypeValue(prop);
    if (wrong !== undefined) derived.push({ name: `wrong type for "${key}"`, tool: tool.name, args: with_(key, wrong), expect: INVALID });
    for (const [label, value, valid] of boundaries(prop, base[key])) {
      derived.push({ name: `"${key}" ${label}`, tool: tool.name, args: with_(key, value), expect: valid ? { ok: true } : INVALID });
    }
  }
  // Keep a derived case only when the schema agrees with its expectation (e.g. a
  // length boundary that a pattern would reject is dropped, not mislabelled).
  for (const c of derived) {
    const valid = 'ok' in c.expect;
    if (valid && input.validBoundaries === false) continue;
    if (compiled.validate(c.args, VALIDITY_ONLY).ok === valid) cases.push({ ...c, ...meta });
  }
  for (const e of input.businessErrors ?? []) {
    cases.push({ name: e.name, tool: tool.name, args: e.args, ...defined({ meta: e.meta }), expect: { code: e.code } });
  }
  return cases;
}

function typesOf(prop: Record<string, unknown>): string[] {
  if (Array.isArray(prop.type)) return prop.type as string[];
  if (typeof prop.type === 'string') return [prop.type];
  return [];
}

// Values of each JSON type, tried in order; the first whose type the schema does not allow is used.
const TYPED_VALUES: [string, unknown][] = [
  ['string', 'not the right type'],
  ['integer', 12345],
  ['boolean', true],
  ['object', { wrong: true }],
  ['array', ['wrong']],
  ['null', null],
];

function wrongTypeValue(prop: Record<string, unknown>): unknown {
  const types = new Set(typesOf(prop));
  if (types.size === 0) return undefined;
  for (const [type, value] of TYPED_VALUES) {
    const allowed = types.has(type) || (type === 'integer' && types.has('number'));
    if (!allowed) return value;
  }
  return undefined;
}

function boundaries(prop: Record<string, unknown>, example: unknown): [string, unknown, boolean][] {
  const out: [string, unknown, boolean][] = [];
  const step = typesOf(prop).includes('integer') ? 1 : 0.001;
  const num = (k: string) => (typeof prop[k] === 'number' ? (prop[k] as number) : undefined);
  const min = num('minimum');
  const max = num('maximum');
  const xmin = num('exclusiveMinimum');
  const xmax = num('exclusiveMaximum');
  if (min !== undefined) out.push(['at minimum', min, true], ['just below minimum', min - step, false]);
  if (max !== undefined) out.push(['at maximum', max, true], ['just above maximum', max + step, false]);
  if (xmin !== undefined) out.push(['just above exclusiveMinimum', xmin + step, true], ['at exclusiveMinimum', xmin, false]);
  if (xmax !== undefined) out.push(['just below exclusiveMaximum', xmax - step, true], ['at exclusiveMaximum', xmax, false]);
  // Lengths and counts beyond MAX_BOUNDARY are not built (a hostile schema could ask for gigabytes).
  const bounded = (k: string) => {
    const n = num(k);
    return n !== undefined && Number.isInteger(n) && n >= 0 && n <= MAX_BOUNDARY ? n : undefined;
  };
  const minLength = bounded('minLength');
  const maxLength = bounded('maxLength');
  if (minLength !== undefined) {
    out.push(['at minLength', 'a'.repeat(minLength), true]);
    if (minLength > 0) out.push(['just under minLength', 'a'.repeat(minLength - 1), false]);
  }
  if (maxLength !== undefined)
    out.push(['at maxLength', 'a'.repeat(maxLength), true], ['just over maxLength', 'a'.repeat(maxLength + 1), false]);
  const item = Array.isArray(example) && example.length > 0 ? example[0] : undefined;
  const minItems = bounded('minItems');
  const maxItems = bounded('maxItems');
  if (item !== undefined && minItems !== undefined) {
    out.push(['at minItems', Array(minItems).fill(item), true]);
    if (minItems > 0) out.push(['just under minItems', Array(minItems - 1).fill(item), false]);
  }
  if (item !== undefined && maxItems !== undefined)
    out.push(['at maxItems', Array(maxItems).fill(item), true], ['just over maxItems', Array(maxItems + 1).fill(item), false]);
  if (Array.isArray(prop.enum) && prop.enum.length > 0)
    out.push(['an allowed enum value', prop.enum[0], true], ['a value outside the enum', '__not_in_enum__', false]);
  return out;
}

/** One case's outcome in one era. */
export interface ContractResult {
  case: ContractCase;
  /** The era of the connection the case ran on. */
  era: ProtocolEra;
  passed: boolean;
  /** What the server did: ok, or the code of its tool error. */
  got: ContractExpectation;
}

/** The cases' outcomes in one era, or why the server does not speak it. */
export interface ContractEraReport {
  era: ProtocolEra;
  /** The version the connection spoke (absent when unavailable). */
  protocolVersion?: string;
  passed: number;
  failed: number;
  results: ContractResult[];
  /** Set when the server does not speak this era: why (its cases did not run, and are not counted as failed). */
  unavailable?: string;
  /** The interfaces (MCP Apps) of the cases' tools, read and checked (each failed one counts in `failed`). */
  apps?: AppCheck[];
}

/** A contract run's report: every era's results, and each era's on its own. */
export interface ContractReport {
  passed: number;
  failed: number;
  results: ContractResult[];
  eras: ContractEraReport[];
  durationMs: number;
  casesPerSecond: number;
}

/** Options of {@link runContract}. */
export interface ContractOptions extends ConnectOptions {
  /**
   * The eras to run the cases in (C3, E1), each on a connection pinned to it.
   * Default: the one the config pins, else both (2025 and 2026-07-28).
   */
  eras?: readonly ProtocolEra[];
}

/**
 * Runs the cases against the running server (a connection per era, real
 * transport) and reports each outcome, per era; an era the server does not
 * speak is reported unavailable (protocol_mismatch when it speaks none of them).
 */
export async function runContract(
  target: McpDocument | McpServerConfig,
  cases: readonly ContractCase[],
  options: ContractOptions = {},
): Promise<ContractReport> {
  const { eras: given, ...connect } = options;
  const started = performance.now();
  const eras: ContractEraReport[] = [];
  for (const era of erasOf(target, given)) {
    const connection = await connectInEra(target, era, connect);
    if ('unavailable' in connection) {
      eras.push({ era, passed: 0, failed: 0, results: [], unavailable: connection.unavailable });
      continue;
    }
    const results: ContractResult[] = [];
    let apps: AppCheck[] = [];
    try {
      apps = await appChecks(connection, new Set(cases.map((c) => c.tool))); // read first: a case may end the server
      for (const c of cases) {
        const got = await outcomeOf(() => connection.callTool(c.tool, c.args, c.meta ? { meta: c.meta } : {}));
        const passed = 'ok' in c.expect ? 'ok' in got : 'code' in got && got.code === c.expect.code;
        results.push({ case: c, era, passed, got });
      }
    } finally {
      await connection.close();
    }
    const passed = results.filter((r) => r.passed).length;
    const appsFailed = apps.filter((a) => !a.passed).length;
    const checked = apps.length === 0 ? {} : { apps };
    eras.push({
      era,
      protocolVersion: connection.protocolVersion,
      passed,
      failed: results.length - passed + appsFailed,
      results,
      ...checked,
    });
  }
  // No era spoken: nothing ran, and a contract that ran nothing must not read as passed.
  if (eras.every((e) => e.unavailable !== undefined))
    throw new AgtError('protocol_mismatch', eras.map((e) => e.unavailable).join('; '), { details: { offered: [] } });
  const durationMs = performance.now() - started;
  const results = eras.flatMap((e) => e.results);
  const passed = results.filter((r) => r.passed).length;
  const failed = eras.reduce((n, e) => n + e.failed, 0);
  return { passed, failed, results, eras, durationMs, casesPerSecond: results.length / (durationMs / 1000) };
}

// The interfaces of the named tools, as the server lists them.
async function appChecks(connection: McpConnection, names: ReadonlySet<string>): Promise<AppCheck[]> {
  const listed = (await connection.listTools()).filter((t) => names.has(t.name));
  const checks = await Promise.all(listed.map((t) => checkToolApp(connection, t)));
  return checks.filter((c): c is AppCheck => c !== undefined);
}

async function outcomeOf(call: () => Promise<{ isError?: boolean; content: unknown[] }>): Promise<ContractExpectation> {
  let result;
  try {
    result = await call();
  } catch (error) {
    return { code: isAgtError(error) ? error.code : 'tool_failed' }; // a listed code, as a run's result would carry
  }
  if (result.isError !== true) return { ok: true };
  const declared = readToolError(result.content);
  if (declared !== undefined) return { code: declared.code };
  return { code: 'tool_error' };
}
