/**
 * McpProber (P2–P4): starts or connects a server exactly the way a run does
 * (connectMcp), performs initialize and every page of tools/list, compiles
 * every tool's inputSchema with the ToolSchemaRegistry, and always closes. It
 * calls no business tool.
 *
 * A probe is a live action (P3): it executes the configured command on this
 * host, with no sandbox, or contacts the URL. Its result is no certificate
 * (P4): every run connects and lists tools again.
 */
import { AgtError, isAgtError } from '../errors.js';
import type { McpDocument } from '../resources/mcp-config.js';
import type { ResourceService } from '../resources/service.js';
import type { Dialect } from '../schema/dialects.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { connectMcp, type McpConnection } from './connect.js';
import type { Timeouts } from './timeouts.js';

/** One tool as the probe judged it. */
export interface ProbedTool {
  name: string;
  ok: boolean;
  dialect?: Dialect;
  description?: string;
  error?: { code: string; message: string; schemaPath?: string };
}

/** What a probe found. */
export interface ProbeReport {
  /** True when every tool loaded and nothing is wrong with the list. */
  ok: boolean;
  server: { name: string; version: string };
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  transport: string;
  timings: { spawnMs: number; initializeMs: number; listMs: number; closeMs: number };
  tools: ProbedTool[];
  warnings: string[];
  stderrTail: string;
}

/** Options of {@link McpProber}. */
export interface McpProberOptions {
  /** Needed to probe stored references. */
  service?: ResourceService;
  registry?: ToolSchemaRegistry;
  timeouts?: Partial<Timeouts>;
}

// A tool name as MCP recommends it: 1–128 of A–Z a–z 0–9 _ - . /
const TOOL_NAME = /^[A-Za-z0-9_.\/-]{1,128}$/;

/** Probes MCP servers live. */
export class McpProber {
  readonly #service: ResourceService | undefined;
  readonly #registry: ToolSchemaRegistry;
  readonly #timeouts: Partial<Timeouts> | undefined;

  constructor(options: McpProberOptions = {}) {
    this.#service = options.service;
    this.#registry = options.registry ?? new ToolSchemaRegistry();
    this.#timeouts = options.timeouts;
  }

  /** Probes a stored reference (needs `service`) or a document; a launch failure rejects with its AgtError code. */
  async probe(target: string | McpDocument): Promise<ProbeReport> {
    const document = typeof target === 'string' ? await this.#read(target) : target;
    const connection = await connectMcp(document, this.#timeouts === undefined ? {} : { timeouts: this.#timeouts });
    let listMs = 0;
    let tools: ProbedTool[];
    try {
      const started = performance.now();
      const raw = await connection.listTools();
      listMs = performance.now() - started;
      tools = judge(raw, this.#registry);
    } catch (error) {
      await connection.close();
      throw error;
    }
    const closeMs = await timedClose(connection);
    return {
      ok: tools.every((t) => t.ok),
      server: connection.serverInfo,
      protocolVersion: connection.protocolVersion,
      capabilities: connection.capabilities,
      transport: connection.transport,
      timings: { ...connection.timings, listMs, closeMs },
      tools,
      warnings: [...connection.warnings],
      stderrTail: connection.stderrTail(),
    };
  }

  async #read(reference: string): Promise<McpDocument> {
    if (this.#service === undefined) {
      throw new AgtError('invalid_input', 'McpProber needs { service } to probe a stored reference; pass a { mcpServers } document to probe without one');
    }
    return (await this.#service.read({ kind: 'mcp', reference })).data as McpDocument;
  }
}

async function timedClose(connection: McpConnection): Promise<number> {
  const started = performance.now();
  await connection.close();
  return performance.now() - started;
}

function judge(raw: { name: string; description?: string; inputSchema: unknown }[], registry: ToolSchemaRegistry): ProbedTool[] {
  const counts = new Map<string, number>();
  for (const tool of raw) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  return raw.map((tool): ProbedTool => {
    const base = { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }) };
    if ((counts.get(tool.name) ?? 0) > 1) {
      return { ...base, ok: false, error: { code: 'duplicate_name', message: 'another tool of this server has the same name; calls would be ambiguous' } };
    }
    if (!TOOL_NAME.test(tool.name)) {
      return { ...base, ok: false, error: { code: 'invalid_name', message: 'a tool name must be 1-128 characters of letters, digits, "_", "-", "." or "/"' } };
    }
    try {
      const compiled = registry.compile(tool.inputSchema, { tool: tool.name });
      return { ...base, ok: true, dialect: compiled.dialect };
    } catch (error) {
      if (!isAgtError(error)) throw error;
      const schemaPath = typeof error.details?.schemaPath === 'string' ? error.details.schemaPath : undefined;
      return { ...base, ok: false, error: { code: error.code, message: error.message, ...(schemaPath === undefined ? {} : { schemaPath }) } };
    }
  });
}
