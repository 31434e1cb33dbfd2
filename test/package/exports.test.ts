/**
 * The built package, imported by name through its exports map (ESM and CJS),
 * as a host application would. `npm test` builds first (pretest).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/index.js';

const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

describe('package exports', () => {
  it('dist/ is built', () => {
    expect(fs.existsSync(path.join(REPO_ROOT, 'dist', 'index.js'))).toBe(true);
  });

  it('ESM: agt-mcp, agt-mcp/testing, agt-mcp/sqlite and agt-mcp/authoring resolve to working code', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `import { ToolSchemaRegistry, ResourceService, MemoryStore, isAgtError } from 'agt-mcp';
       import { storeConformanceSuite } from 'agt-mcp/testing';
       import { SqliteStore } from 'agt-mcp/sqlite';
       import { defineTool, contractCases } from 'agt-mcp/authoring';
       import { PostgresStore } from 'agt-mcp/postgres';
       const c = new ToolSchemaRegistry().compile({ type: 'object' }, { tool: 't' });
       const s = new ResourceService({ store: new MemoryStore() });
       const r = await s.write({ kind: 'agent', reference: 'a/b', create: true, data: {} });
       console.log([c.dialect, r.record.revision, typeof storeConformanceSuite, typeof SqliteStore, typeof defineTool, typeof contractCases, typeof PostgresStore, isAgtError(new Error())].join(' '));`,
    ]);
    expect(out).toBe('2020-12 1 function function function function function false');
  });

  it('ESM and CJS: agt-mcp/openai, agt-mcp/anthropic, agt-mcp/ai-sdk and agt-mcp/otel resolve', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import { toOpenAITools } from 'agt-mcp/openai';
       import { toAnthropicTools } from 'agt-mcp/anthropic';
       import { aiSdkTools } from 'agt-mcp/ai-sdk';
       import { otelAuditSink } from 'agt-mcp/otel';
       const require = createRequire(import.meta.url);
       const tools = [{ name: 't', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }];
       console.log([toOpenAITools(tools, { api: 'chat' })[0].function.strict, toAnthropicTools(tools)[0].input_schema.type, typeof aiSdkTools, typeof otelAuditSink,
         typeof require('agt-mcp/openai').toOpenAITools, typeof require('agt-mcp/otel').otelAuditSink].join(' '));`,
    ]);
    expect(out).toBe('true object function function function function');
  });

  it('P2: agt-mcp/testing fixtureServer() (ESM and CJS) starts the shipped fixture server; a probe and a call work', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import { connectMcp, McpProber } from 'agt-mcp';
       import { fixtureServer } from 'agt-mcp/testing';
       const config = fixtureServer();
       const fromCjs = createRequire(import.meta.url)('agt-mcp/testing').fixtureServer();
       const report = await new McpProber().probe({ mcpServers: { fixture: config } });
       const connection = await connectMcp(config);
       const sum = (await connection.callTool('add', { a: 2, b: 3 })).structuredContent.sum;
       const failed = await connection.callTool('fail', { code: 'out_of_stock' });
       await connection.close();
       console.log(JSON.stringify({ args: config.args, cjsArgs: fromCjs.args, ok: report.ok, tools: report.tools.map((t) => t.name).sort(), sum, failed: failed.isError }));`,
    ]);
    const seen = JSON.parse(out);
    expect(seen.args).toEqual([path.join(REPO_ROOT, 'dist', 'fixture-server.js')]);
    expect(seen.cjsArgs).toEqual(seen.args);
    expect(seen).toMatchObject({ ok: true, tools: ['add', 'echo', 'env', 'fail', 'sleep'], sum: 5, failed: true });
  });

  it('CJS: require() gets the same API, and isAgtError recognises errors across the ESM and CJS copies', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import * as esm from 'agt-mcp';
       const cjs = createRequire(import.meta.url)('agt-mcp');
       let thrown; try { new cjs.ToolSchemaRegistry().compile({ type: 5 }, { tool: 't' }); } catch (e) { thrown = e; }
       console.log([typeof cjs.ToolSchemaRegistry, thrown instanceof esm.AgtError, esm.isAgtError(thrown), thrown.code].join(' '));`,
    ]);
    expect(out).toBe('function false true schema_load_failed');
  });

  // The value exports of every entry point, pinned: adding or removing a public name is a decision, made here.
  const PUBLIC: Record<string, string[]> = {
    'agt-mcp': [
      'AGT_ERROR_CODES',
      'AgtError',
      'DEFAULT_APPROVAL_TTL_MS',
      'DEFAULT_CALL_TIMEOUT_MS',
      'DEFAULT_LEGACY_VERDICT_MS',
      'DEFAULT_LIMITS',
      'DEFAULT_TIMEOUTS',
      'FRAMEWORK_TOOL_NAMES',
      'HarnessToolSet',
      'JsoncError',
      'LOG_LEVELS',
      'McpPool',
      'McpProber',
      'MemoryAuditStore',
      'MemoryRunStore',
      'MemoryStore',
      'MemoryTokenStore',
      'MemoryVerdictStore',
      'NativeRun',
      'RESOURCE_KINDS',
      'RESOURCE_MANAGEMENT',
      'RESULT_STATUSES',
      'RUN_FORMAT_VERSION',
      'ResourceService',
      'SECRET_MASK',
      'StoreAuditSink',
      'TOOL_SEARCH',
      'ToolIndex',
      'ToolSchemaRegistry',
      'checkExpectedRevision',
      'clientCapabilities',
      'connectMcp',
      'documentInputs',
      'estimateToolTokens',
      'executeModelCalls',
      'expectedRevisionOf',
      'isAgtError',
      'isReference',
      'isToolErrorSignal',
      'loginMcp',
      'loginState',
      'parseJsonc',
      'parseReference',
      'planImport',
      'policies',
      'readToolError',
      'redactMcpDocument',
      'redactRecord',
      'resolveConnectSettings',
      'resolveServerConfig',
      'revisionConflict',
      'runAgentLoop',
      'storedOAuth',
      'toolAlias',
      'toolErrorOf',
    ],
    'agt-mcp/testing': [
      'ScriptedModel',
      'auditStoreConformanceSuite',
      'contractSuite',
      'fixtureServer',
      'fixtureTools',
      'runStoreConformanceSuite',
      'storeConformanceSuite',
      'tokenStoreConformanceSuite',
    ],
    'agt-mcp/authoring': [
      'ToolErrorSignal',
      'checkServer',
      'contractCases',
      'createToolServer',
      'defineTool',
      'parseArguments',
      'runContract',
      'serveHttp',
      'serveStdio',
      'toolError',
      'toolResult',
    ],
    'agt-mcp/sqlite': ['SQLITE_SCHEMA_VERSION', 'SqliteAuditStore', 'SqliteRunStore', 'SqliteStore', 'SqliteTokenStore'],
    'agt-mcp/postgres': [
      'POSTGRES_SCHEMA_VERSION',
      'PostgresAuditStore',
      'PostgresRunStore',
      'PostgresStore',
      'PostgresTokenStore',
      'migrationSql',
    ],
    'agt-mcp/openai': [
      'fromOpenAIToolCalls',
      'OPENAI_TOOL_LIMITS',
      'openAIModel',
      'toOpenAIToolCallItems',
      'toOpenAIToolMessages',
      'toOpenAITools',
    ],
    'agt-mcp/anthropic': [
      'anthropicModel',
      'fromAnthropicToolUse',
      'toAnthropicToolResult',
      'toAnthropicToolResults',
      'toAnthropicTools',
      'toAnthropicToolUse',
    ],
    'agt-mcp/ai-sdk': ['aiSdkModel', 'aiSdkTools', 'standardJsonSchema'],
    'agt-mcp/otel': ['otelAuditSink'],
  };

  it('every entry point exports exactly its listed public names (internals stay internal)', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `const names = {}; for (const e of ${JSON.stringify(Object.keys(PUBLIC))}) names[e] = Object.keys(await import(e)).sort(); console.log(JSON.stringify(names));`,
    ]);
    expect(JSON.parse(out)).toEqual(Object.fromEntries(Object.entries(PUBLIC).map(([k, v]) => [k, [...v].sort()])));
  });
});
