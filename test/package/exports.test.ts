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

  it('ESM and CJS: agt-mcp/apps resolves, with ext-apps (its optional peer) loaded by it alone', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import { createAppBridge, appCspHeader, APP_MIME_TYPE } from 'agt-mcp/apps';
       const require = createRequire(import.meta.url);
       const bridge = createAppBridge({}, { tool: 't' });
       console.log([typeof createAppBridge, bridge.constructor.name !== '', appCspHeader(undefined).startsWith("default-src 'none'"), APP_MIME_TYPE,
         typeof require('agt-mcp/apps').createAppBridge].join(' '));`,
    ]);
    expect(out).toBe('function true true text/html;profile=mcp-app function');
    // The other entries do not load ext-apps: only the apps entry imports it (a chunk may hold package.json's text, which names it).
    const loads = /(from\s*|import\(\s*|require\(\s*)["']@modelcontextprotocol\/ext-apps/;
    const naming = fs
      .readdirSync(path.join(REPO_ROOT, 'dist'))
      .filter((f) => /\.(c?js)$/.test(f) && loads.test(fs.readFileSync(path.join(REPO_ROOT, 'dist', f), 'utf8')));
    expect(naming.sort()).toEqual(['apps.cjs', 'apps.js']);
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

  it('E6: run.pending() is the one name of what waits (approvals, questions, tasks), in ESM and CJS; pendingApprovals is gone, no alias', () => {
    const probe = (load: string) =>
      `const { NativeRun } = ${load}; console.log(JSON.stringify([typeof NativeRun.prototype.pending, typeof NativeRun.prototype.pendingApprovals]));`;
    expect(JSON.parse(run(['--input-type=module', '-e', probe("await import('agt-mcp')")]))).toEqual(['function', 'undefined']);
    expect(JSON.parse(run(['-e', probe("require('agt-mcp')")]))).toEqual(['function', 'undefined']);
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
      'DEFAULT_LIMITS',
      'DEFAULT_TIMEOUTS',
      'HarnessToolSet',
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
      'RESULT_ERROR_CODES',
      'RESULT_STATUSES',
      'ResourceService',
      'StoreAuditSink',
      'ToolIndex',
      'ToolSchemaRegistry',
      'connectMcp',
      'executeModelCalls',
      'isAgtError',
      'loginMcp',
      'policies',
      'resolveConnectSettings',
      'runAgentLoop',
      'storedOAuth',
      'toolAlias',
      'withRevision',
    ],
    'agt-mcp/adapters': [
      'DEFAULT_APPROVAL_TTL_MS',
      'DEFAULT_LEGACY_VERDICT_MS',
      'FRAMEWORK_TOOL_NAMES',
      'RUN_FORMAT_VERSION',
      'SKILL_READ',
      'TOOL_SEARCH',
      'checkExpectedRevision',
      'clientCapabilities',
      'estimateToolTokens',
      'expectedRevisionOf',
      'isToolErrorSignal',
      'loginState',
      'oneLine',
      'outsideText',
      'readToolError',
      'renderSkills',
      'revisionConflict',
      'toolErrorOf',
    ],
    'agt-mcp/ai-sdk': ['aiSdkModel', 'aiSdkTools', 'standardJsonSchema'],
    'agt-mcp/apps': ['APP_MIME_TYPE', 'UI_EXTENSION', 'appAllowAttribute', 'appCspHeader', 'createAppBridge'],
    'agt-mcp/anthropic': [
      'anthropicModel',
      'fromAnthropicToolUse',
      'toAnthropicToolResult',
      'toAnthropicToolResults',
      'toAnthropicToolUse',
      'toAnthropicTools',
    ],
    'agt-mcp/authoring': [
      'DEFAULT_CACHE_HINT',
      'MemoryTaskStore',
      'ToolErrorSignal',
      'checkServer',
      'contractCases',
      'createToolServer',
      'defaultAppUri',
      'defineTool',
      'parseArguments',
      'runContract',
      'serveHttp',
      'serveStdio',
      'toolError',
      'toolResult',
    ],
    'agt-mcp/config': [
      'JsoncError',
      'RESOURCE_MANAGEMENT',
      'SECRET_MASK',
      'SERVER_JSON_SCHEMAS',
      'documentInputs',
      'importServerJson',
      'isReference',
      'isServerJson',
      'parseJsonc',
      'parseReference',
      'planImport',
      'redactMcpDocument',
      'redactRecord',
      'resolveServerConfig',
    ],
    'agt-mcp/openai': [
      'OPENAI_TOOL_LIMITS',
      'fromOpenAIToolCalls',
      'openAIModel',
      'toOpenAIToolCallItems',
      'toOpenAIToolMessages',
      'toOpenAITools',
    ],
    'agt-mcp/otel': ['otelAuditSink'],
    'agt-mcp/postgres': [
      'POSTGRES_SCHEMA_VERSION',
      'PostgresAuditStore',
      'PostgresRunStore',
      'PostgresStore',
      'PostgresTokenStore',
      'migrationSql',
    ],
    'agt-mcp/sqlite': [
      'SQLITE_SCHEMA_VERSION',
      'SqliteAuditStore',
      'SqliteRunStore',
      'SqliteStore',
      'SqliteTaskStore',
      'SqliteTokenStore',
      'sqliteDriver',
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
  };

  // The type exports, pinned the same way (read from the built .d.ts files with the TypeScript checker).
  const TYPES: Record<string, string[]> = {
    'agt-mcp': [
      'AfterHook',
      'AgentData',
      'AgentDescription',
      'AgentLoopOptions',
      'AgentSettings',
      'AgtErrorCode',
      'AnnotationMatch',
      'ApprovalDecision',
      'ArgumentIssue',
      'AuditEvent',
      'AuditSink',
      'AuditStore',
      'AutoAllowMatch',
      'BatchResult',
      'BeforeHook',
      'CallDecision',
      'CallOptions',
      'ClientHandlers',
      'Completion',
      'CompletionRef',
      'ConnectOptions',
      'ConnectSettings',
      'CreateMessageResult',
      'DelegateTool',
      'ElicitResult',
      'ElicitationRequest',
      'HarnessToolDef',
      'InputDecision',
      'LeaseRequest',
      'ListChangedKind',
      'LogLevel',
      'LoginOptions',
      'LoopMessage',
      'LoopOutcome',
      'McpAuth',
      'McpCallResult',
      'McpConnection',
      'McpDocument',
      'McpInputRequired',
      'McpLease',
      'McpLogMessage',
      'McpPoolOptions',
      'McpProberOptions',
      'McpPrompt',
      'McpResource',
      'McpResourceTemplate',
      'McpRoot',
      'McpServerConfig',
      'ModelCallsResult',
      'ModelLike',
      'ModelTool',
      'MountStatus',
      'NativeRunOptions',
      'PendingCall',
      'PermissionDecision',
      'PermissionPolicy',
      'PermissionRequest',
      'PoolStats',
      'ProbeReport',
      'ProgressEvent',
      'PromptResult',
      'ProtocolEra',
      'RequestOptions',
      'ResolvedConnectSettings',
      'ResourceContents',
      'ResourceKind',
      'ResourceRecord',
      'ResourceRef',
      'ResourceServiceOptions',
      'ResourceTarget',
      'ResultError',
      'ResultStatus',
      'ReviewContext',
      'RunLimits',
      'RunNotificationContext',
      'RunRequestContext',
      'RunSnapshot',
      'RunStore',
      'SamplingRequest',
      'ServerRequestContext',
      'SkillData',
      'StoredOAuthOptions',
      'SuspendedRun',
      'Timeouts',
      'ToolAnnotations',
      'ToolBatch',
      'ToolCall',
      'ToolError',
      'ToolHit',
      'ToolResult',
      'ToolSearchOptions',
      'WriteInput',
      'WriteResult',
    ],
    'agt-mcp/adapters': [
      'AgentSkillData',
      'AgtErrorDetails',
      'AnyAgtError',
      'AppCallOptions',
      'AppContextUpdate',
      'AppCsp',
      'AppPermissions',
      'AppResource',
      'ApprovalRequestedEvent',
      'AuditQuery',
      'AuthSetting',
      'BatchFinishedEvent',
      'BatchProblem',
      'BatchRejectReason',
      'BatchRejectedEvent',
      'BatchRejection',
      'BatchRunner',
      'BatchStartedEvent',
      'BearerTokenProvider',
      'CallChange',
      'CallIdentity',
      'CompiledToolSchema',
      'ConfigProblemDetail',
      'ConflictTarget',
      'Dialect',
      'EraVerdict',
      'EraVerdictStore',
      'InFlightCall',
      'InFlightView',
      'InputDecidedEvent',
      'InputMethod',
      'InputRequestedEvent',
      'InputRetry',
      'LegacySkillData',
      'LoginState',
      'McpInputRequest',
      'McpOAuthProvider',
      'McpSkill',
      'McpSkillFile',
      'McpSkillListing',
      'McpTask',
      'McpTaskStarted',
      'McpTaskStatus',
      'ModelCall',
      'OutputIssueDetail',
      'OutsideTextOptions',
      'PoolAuditSink',
      'PoolClock',
      'PoolEvent',
      'PoolKeyStats',
      'ProbePhase',
      'ProbedApp',
      'ProbedList',
      'ProbedSchemaError',
      'ProbedTool',
      'RawTool',
      'RecoverResult',
      'RecoveredCall',
      'RefreshEvent',
      'RefreshTrigger',
      'RejectedBatch',
      'ResourceStore',
      'ResourceWrite',
      'ResultBudgetOptions',
      'ResultCut',
      'ResultErrorCode',
      'ResultErrorDetails',
      'RevisionChange',
      'RevisionService',
      'RouteKind',
      'RunAnnouncement',
      'RunListFilter',
      'RunWatch',
      'RunWatchGap',
      'RunWatchOptions',
      'RunWrite',
      'SchemaLoadReason',
      'SchemaPart',
      'SearchableTool',
      'SkillInfo',
      'SkillText',
      'StoredRun',
      'StoredTokens',
      'StoredVerdict',
      'TaskFinishedEvent',
      'TaskStartedEvent',
      'TokenStore',
      'ToolCallEvent',
      'ToolSchemaRegistryOptions',
      'ToolsLoadedEvent',
      'TraceContext',
      'ValidateOptions',
      'ValidationResult',
      'WithRevisionOptions',
      'WithRevisionResult',
    ],
    'agt-mcp/ai-sdk': [
      'AiSdkModelOptions',
      'AiSdkModelParts',
      'AiSdkTool',
      'AiSdkToolsOptions',
      'ConversationOptions',
      'GenerateTextResultLike',
      'StandardJsonSchema',
    ],
    'agt-mcp/anthropic': [
      'AnthropicClientLike',
      'AnthropicModelOptions',
      'AnthropicResultContent',
      'AnthropicTool',
      'AnthropicToolResultBlock',
      'AnthropicToolUseBlock',
      'ConversationOptions',
    ],
    'agt-mcp/authoring': [
      'AppCheck',
      'AppCsp',
      'AppPermissions',
      'AppProblem',
      'AppVisibility',
      'CacheHint',
      'CallToolResult',
      'Caller',
      'CheckCase',
      'CheckCaseResult',
      'CheckOutcome',
      'ContractCase',
      'ContractEraReport',
      'ContractExpectation',
      'ContractInput',
      'ContractOptions',
      'ContractReport',
      'ContractResult',
      'ContractTool',
      'DefinedApp',
      'DefinedTool',
      'EraCheck',
      'HttpToolService',
      'KitSkillSource',
      'MemoryTaskStoreOptions',
      'MessageTransport',
      'ServableTool',
      'ServeHttpOptions',
      'ServeStdioOptions',
      'ServedEra',
      'ServerCheckOptions',
      'ServerCheckReport',
      'TaskRecord',
      'TaskServingOptions',
      'TaskStatus',
      'TaskStore',
      'TaskSupport',
      'ToolApp',
      'ToolCheck',
      'ToolContext',
      'ToolDefinition',
      'ToolOutput',
      'ToolServer',
      'ToolServerOptions',
    ],
    'agt-mcp/config': [
      'ConfigProblem',
      'ConfigTestReport',
      'DeclaredInput',
      'ImportEntry',
      'ImportFormat',
      'ImportOptions',
      'McpTransport',
      'ParsedReference',
      'RemoteServerConfig',
      'ServerJsonImport',
      'ServerJsonImportOptions',
      'ServerJsonSource',
      'StdioServerConfig',
      'UnresolvedVariable',
      'VariableSources',
    ],
    'agt-mcp/openai': [
      'ConversationOptions',
      'OpenAIApi',
      'OpenAIChatAssistantMessage',
      'OpenAIChatTool',
      'OpenAIChatToolCall',
      'OpenAIChatToolMessage',
      'OpenAIClientLike',
      'OpenAIFunctionCallItem',
      'OpenAIFunctionCallOutput',
      'OpenAIModelOptions',
      'OpenAIOptions',
      'OpenAIResponsesTool',
      'ProviderToolLimits',
    ],
    'agt-mcp/otel': ['OtelAuditSinkOptions'],
    'agt-mcp/apps': ['AppBridgeOptions', 'AppCsp', 'AppHostRun', 'AppHostTool', 'AppPermissions', 'AppResource'],
    'agt-mcp/postgres': ['PgClientLike', 'PgOptions', 'PgPoolLike', 'PostgresStoreOptions', 'PostgresTokenStoreOptions'],
    'agt-mcp/sqlite': [
      'SqliteConnection',
      'SqliteDriver',
      'SqliteDriverName',
      'SqliteOptions',
      'SqliteStatement',
      'SqliteStoreOptions',
      'SqliteTokenStoreOptions',
    ],
    'agt-mcp/testing': ['RunStoreConformanceOptions', 'ScriptedInput', 'ScriptedStep', 'StoreConformanceOptions', 'TestFunction'],
  };

  it('every entry point exports exactly its listed public names (internals stay internal)', () => {
    const out = run([
      '--input-type=module',
      '-e',
      `const names = {}; for (const e of ${JSON.stringify(Object.keys(PUBLIC))}) names[e] = Object.keys(await import(e)).sort(); console.log(JSON.stringify(names));`,
    ]);
    expect(JSON.parse(out)).toEqual(Object.fromEntries(Object.entries(PUBLIC).map(([k, v]) => [k, [...v].sort()])));
  });

  it('the entries are tiered: the root keeps what a host programs against (at most 125 names), adapters and config the rest', async () => {
    const ts = (await import('typescript')).default;
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { import: { types: string } }>;
    };
    const entries = Object.entries(pkg.exports).flatMap(([key, value]) =>
      typeof value === 'string'
        ? []
        : [[key === '.' ? 'agt-mcp' : `agt-mcp/${key.slice(2)}`, path.join(REPO_ROOT, value.import.types)] as const],
    );
    const program = ts.createProgram(
      entries.map(([, file]) => file),
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true },
    );
    const checker = program.getTypeChecker();
    const found: Record<string, { values: string[]; types: string[] }> = {};
    for (const [entry, file] of entries) {
      const values: string[] = [];
      const types: string[] = [];
      for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!)) {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
      }
      found[entry] = { values: values.sort(), types: types.sort() };
    }
    expect(Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v.types]))).toEqual(
      Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [k, [...v].sort()])),
    );
    expect(Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v.values]))).toEqual(
      Object.fromEntries(Object.entries(PUBLIC).map(([k, v]) => [k, [...v].sort()])),
    );
    const root = found['agt-mcp']!;
    // ~120, at most 125: 124 after DEFAULT_APPROVAL_TTL_MS and FRAMEWORK_TOOL_NAMES went to adapters, room for one name (the result codes).
    expect(root.values.length + root.types.length).toBeLessThanOrEqual(125);
    // No name is in two entries of the core (a name has one home).
    const core = ['agt-mcp', 'agt-mcp/adapters', 'agt-mcp/config'].flatMap((e) => [...found[e]!.values, ...found[e]!.types]);
    expect(core.length).toBe(new Set(core).size);
  }, 120_000); // a TypeScript program over every entry's types: over 30 s on a loaded 2-core machine
});
