/**
 * A contract check of any MCP server, generated from its own schemas (`agt mcp
 * check`). For each tool: arguments guessed from its inputSchema until its
 * compiled validator accepts them, plus the invalid cases contractCases
 * derives (a required field missing, a wrong type, a bound crossed, a value
 * outside the enum). Valid cases pass when the server answers within the
 * timeout without a protocol error (a tool error is an answer) and its
 * structuredContent matches the outputSchema; invalid cases pass when the
 * server refuses them (an error result or a JSON-RPC error) rather than
 * accepting, crashing or hanging; after its cases the server must still answer
 * a ping. The cases go to the server as they are: this checks the server's own
 * validation, so nothing is validated on the client first. A tool that
 * declares an interface (MCP Apps) has it read and checked too (app-check.ts).
 *
 * Calls can change the world: only tools annotated `readOnlyHint: true` are
 * called unless `all` is set. A dry run lists the cases and calls nothing.
 *
 * The cases run once per era (2025 and 2026-07-28, or the one the config
 * pins), each on a connection pinned to it; an era the server does not speak
 * is reported unavailable, not failed.
 */
import { AgtError, isAgtError } from '../../errors.js';
import { connectMcp, type ConnectOptions } from '../../mcp/connect.js';
import type { ProtocolEra } from '../../mcp/settings/era.js';
import { resolvedOptions } from '../../mcp/settings/resolved-settings.js';
import type { McpConnection } from '../../mcp/connection.js';
import type { RawTool } from '../../mcp/requests/lists.js';
import { compileToolSchemas, type ToolSchemas } from '../../mcp/probe/tool-schemas.js';
import type { McpDocument, McpServerConfig } from '../../config/mcp-config.js';
import { EXAMPLE_ATTEMPTS, exampleArguments } from '../../schema/example.js';
import { checkStructuredOutput, outputCheckOf, outputVerdictMessage } from '../../schema/structured-output.js';
import { ToolSchemaRegistry } from '../../schema/registry.js';
import { contractCases } from './contract.js';
import { type AppCheck, checkToolApp } from './app-check.js';
import { connectInEra, erasOf, pinnedTo } from '../eras.js';
import { DEFAULT_CHECK_CALL_MS } from '../../bounds.js';

/** Options of {@link checkServer}. */
export interface ServerCheckOptions extends ConnectOptions {
  /** Call every tool, not only those annotated `readOnlyHint: true`. Calls can change the world. */
  all?: boolean;
  /** List the cases; call nothing. */
  dryRun?: boolean;
  /** The longest wait for one answer (a case, the ping after). Default 10 000 ms. */
  callTimeoutMs?: number;
  /** At most this many cases per tool (the valid ones first). Default 16. */
  maxCasesPerTool?: number;
  /** Which tools to check (default all that the read-only rule lets through); the rest are not listed. */
  tools?(name: string): boolean;
  /** The eras to check in, each on its own connection (default: the one the config pins, else both). A dry run plans in the first. */
  eras?: readonly ProtocolEra[];
}

/** One generated case: what is sent, and whether the server should accept it. */
export interface CheckCase {
  name: string;
  args: Record<string, unknown>;
  /** `answer`: valid arguments, answered without a protocol error; `refuse`: invalid ones, refused. */
  expect: 'answer' | 'refuse';
}

/** What the server did with a case. */
export type CheckOutcome = 'ok' | 'tool_error' | 'rpc_error' | 'output_invalid' | 'timeout' | 'crashed' | 'failed';

/** A case's outcome. */
export interface CheckCaseResult {
  case: CheckCase;
  passed: boolean;
  outcome: CheckOutcome;
  /** Why it failed: our words, with the server's JSON-RPC code and (escaped, bounded, masked) message when it sent one. */
  reason?: string;
  ms: number;
}

/** One tool's check in one era. */
export interface ToolCheck {
  tool: string;
  /** The era of the connection its cases ran on. */
  era: ProtocolEra;
  readOnly: boolean;
  /** `skipped`: not called (not read-only, or its schema does not load); `planned`: a dry run. */
  status: 'checked' | 'skipped' | 'planned';
  skipReason?: string;
  cases: CheckCase[];
  results: CheckCaseResult[];
  /** Cases not sent because the server went away during an earlier one. */
  notRun: number;
  /** False after its cases when the server did not answer a ping (it hung or died). */
  pingAfter?: boolean;
  /** Its interface (MCP Apps), when it declares one: listed, read and checked as a host reads it (counts once in failed). */
  app?: AppCheck;
  passed: number;
  failed: number;
}

/** One era of a check: the version spoken, or why the server does not speak it. */
export interface EraCheck {
  era: ProtocolEra;
  protocolVersion?: string;
  /** Set when the server does not speak this era (its tools were not checked in it, and nothing failed). */
  unavailable?: string;
}

/** The check of one server. */
export interface ServerCheckReport {
  ok: boolean;
  server: { name: string; version: string };
  eras: EraCheck[];
  /** Each tool once per era checked, in era order. */
  tools: ToolCheck[];
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  dryRun: boolean;
}

/** Checks the server of `target` against its own schemas, in each era (see the module comment); always closes what it opened. */
export async function checkServer(target: McpDocument | McpServerConfig, options: ServerCheckOptions = {}): Promise<ServerCheckReport> {
  const { all, dryRun, callTimeoutMs = DEFAULT_CHECK_CALL_MS, maxCasesPerTool = 16, tools: only, eras: given, ...rest } = options;
  const connect = resolvedOptions(rest); // resolved once for every connection of the check
  const registry = connect.registry ?? new ToolSchemaRegistry();
  const plan: Plan = { all: all === true, dryRun: dryRun === true, callTimeoutMs, maxCasesPerTool, ...(only ? { only } : {}) };
  const started = performance.now();
  const eras: EraCheck[] = [];
  const tools: ToolCheck[] = [];
  let server: ServerCheckReport['server'] | undefined;
  for (const era of erasOf(target, given)) {
    const opened = await connectInEra(target, era, { ...connect, registry });
    if ('unavailable' in opened) {
      eras.push({ era, unavailable: opened.unavailable });
      continue;
    }
    server ??= opened.serverInfo;
    eras.push({ era, protocolVersion: opened.protocolVersion });
    const reconnect = () => connectMcp(pinnedTo(target, era), { ...connect, registry });
    tools.push(...(await checkEra(opened, era, reconnect, registry, plan)));
    if (plan.dryRun) break;
  }
  if (server === undefined) {
    throw new AgtError('protocol_mismatch', eras.map((e) => e.unavailable).join('; '), { details: { offered: [] } });
  }
  const passed = tools.reduce((n, t) => n + t.passed, 0);
  const failed = tools.reduce((n, t) => n + t.failed, 0);
  return {
    ok: failed === 0,
    server,
    eras,
    tools,
    passed,
    failed,
    skipped: tools.filter((t) => t.status === 'skipped').length,
    durationMs: performance.now() - started,
    dryRun: plan.dryRun,
  };
}

interface Plan {
  all: boolean;
  dryRun: boolean;
  callTimeoutMs: number;
  maxCasesPerTool: number;
  only?: (name: string) => boolean;
}

// One era's checks on its own connection; a tool that crashed the server gets a fresh one for the next.
async function checkEra(
  first: McpConnection,
  era: ProtocolEra,
  reconnect: () => Promise<McpConnection>,
  registry: ToolSchemaRegistry,
  plan: Plan,
): Promise<ToolCheck[]> {
  let connection: McpConnection | undefined = first;
  const tools: ToolCheck[] = [];
  try {
    const listed = await connection.listTools();
    for (const raw of listed) {
      if (plan.only !== undefined && !plan.only(raw.name)) continue;
      const schemas = compileToolSchemas(raw, registry);
      const check = planTool(raw, era, schemas, plan.all, plan.maxCasesPerTool);
      tools.push(check);
      if (plan.dryRun) {
        if (check.status !== 'skipped') check.status = 'planned';
        continue;
      }
      if (connection === undefined || connection.closed) {
        await connection?.close();
        connection = undefined;
        connection = await reconnect();
      }
      if (check.status !== 'skipped') await runTool(check, raw, schemas, connection, plan.callTimeoutMs);
      // Its interface, read (nothing is called): checked for a skipped tool too, on a live connection.
      if (connection.closed) connection = await reconnect();
      const app = await checkToolApp(connection, raw, { timeoutMs: plan.callTimeoutMs });
      if (app !== undefined) Object.assign(check, { app, failed: check.failed + (app.passed ? 0 : 1) });
    }
  } finally {
    await connection?.close();
  }
  return tools;
}

function planTool(raw: RawTool, era: ProtocolEra, schemas: ToolSchemas, all: boolean, max: number): ToolCheck {
  const readOnly = raw.annotations?.readOnlyHint === true;
  const check: ToolCheck = { tool: raw.name, era, readOnly, status: 'checked', cases: [], results: [], notRun: 0, passed: 0, failed: 0 };
  if (!schemas.ok) return { ...check, status: 'skipped', skipReason: `its ${schemas.part} does not load (${schemas.error.code})` };
  if (!readOnly && !all) return { ...check, status: 'skipped', skipReason: 'not annotated readOnlyHint: true (--all calls it)' };
  let base: Record<string, unknown> | undefined;
  for (let attempt = 0; attempt < EXAMPLE_ATTEMPTS && base === undefined; attempt++) {
    const guess = exampleArguments(raw.inputSchema, attempt);
    if (schemas.input.validate(guess, { maxIssues: 1 }).ok) base = guess; // validity only
  }
  const derived = contractCases({ name: raw.name, inputSchema: raw.inputSchema }, { valid: [base ?? exampleArguments(raw.inputSchema)] });
  const cases: CheckCase[] = derived
    .filter((c, i) => i > 0 || base !== undefined) // the first is the base itself: a case only when it is valid
    .map((c) => ({ name: caseName(c.name), args: c.args, expect: 'ok' in c.expect ? 'answer' : 'refuse' }));
  const valid = cases.filter((c) => c.expect === 'answer');
  const invalid = cases.filter((c) => c.expect === 'refuse');
  check.cases = [...valid.slice(0, Math.ceil(max / 2)), ...invalid].slice(0, max);
  if (base === undefined) check.skipReason = 'no valid arguments could be generated from its inputSchema: only invalid cases run';
  return check;
}

// contractCases names its first case "valid example 1": here it is generated.
function caseName(name: string): string {
  return name === 'valid example 1' ? 'generated valid arguments' : name;
}

async function runTool(check: ToolCheck, raw: RawTool, schemas: ToolSchemas, connection: McpConnection, timeoutMs: number): Promise<void> {
  const output = schemas.ok && schemas.output !== undefined ? outputCheckOf(schemas.output, raw.outputSchema) : undefined;
  for (const c of check.cases) {
    if (connection.closed) break;
    const result = await runCase(c, raw.name, connection, timeoutMs, (structured) => {
      if (output === undefined) return undefined;
      const verdict = checkStructuredOutput(structured, output);
      return verdict.ok ? undefined : outputVerdictMessage(verdict);
    });
    check.results.push(result);
  }
  check.pingAfter =
    !connection.closed &&
    (await connection.ping({ timeoutMs }).then(
      () => true,
      () => false,
    ));
  check.notRun = check.cases.length - check.results.length;
  check.passed = check.results.filter((r) => r.passed).length;
  check.failed = check.results.length - check.passed + (check.pingAfter ? 0 : 1);
}

async function runCase(
  c: CheckCase,
  tool: string,
  connection: McpConnection,
  timeoutMs: number,
  outputProblem: (structured: unknown) => string | undefined,
): Promise<CheckCaseResult> {
  const started = performance.now();
  let outcome: CheckOutcome;
  let reason: string | undefined;
  try {
    const result = await connection.callTool(tool, c.args, { timeoutMs });
    reason = result.isError ? undefined : outputProblem(result.structuredContent);
    outcome = result.isError ? 'tool_error' : reason === undefined ? 'ok' : 'output_invalid';
  } catch (error) {
    const code = isAgtError(error) ? error.code : 'failed';
    outcome =
      code === 'call_timeout'
        ? 'timeout'
        : code === 'connection_closed'
          ? 'crashed'
          : code === 'protocol_error' && isAgtError(error) && error.details?.reason === 'server_error'
            ? 'rpc_error'
            : 'failed';
    reason = outcome === 'timeout' ? `no answer within ${timeoutMs} ms` : failureReason(outcome, code, error);
  }
  const ms = performance.now() - started;
  if (c.expect === 'answer') {
    const passed = outcome === 'ok' || outcome === 'tool_error';
    return { case: c, passed, outcome, ms, ...(passed ? {} : { reason: reason ?? outcome }) };
  }
  const passed = outcome === 'tool_error' || outcome === 'rpc_error';
  const why = outcome === 'ok' || outcome === 'output_invalid' ? 'accepted invalid arguments' : (reason ?? outcome);
  return { case: c, passed, outcome, ms, ...(passed ? {} : { reason: why }) };
}

// A failed call in the words that tell what to fix: the server's JSON-RPC code and its (escaped, bounded, masked) message.
function failureReason(outcome: CheckOutcome, code: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (outcome === 'rpc_error') {
    const rpc = isAgtError(error) ? error.details?.rpcCode : undefined;
    const words = message.replace(/^the server answered the tools\/call with an error \(JSON-RPC -?\d+\): /, '');
    return `a JSON-RPC error instead of a result: ${String(rpc)} ${words}`;
  }
  if (outcome === 'crashed') return `the server went away (${message})`;
  return `${code}: ${message}`;
}
