// agt-mcp/authoring: author MCP tools with one valibot definition, serve them, test their contract.
export { defineTool, parseArguments, toolError, ToolErrorSignal } from './define-tool.js';
export type { Caller, DefinedTool, ServableTool, TaskSupport, ToolContext, ToolDefinition, ToolOutput } from './define-tool.js';
export { defaultAppUri } from './app.js';
export type { DefinedApp, ToolApp } from './app.js';
export type { AppCsp, AppPermissions } from '../mcp/apps/csp.js';
export type { AppVisibility } from '../mcp/apps/ui-meta.js';
export { MemoryTaskStore } from './tasks/store.js';
export type { MemoryTaskStoreOptions, TaskRecord, TaskStatus, TaskStore } from './tasks/store.js';
export type { TaskServingOptions } from './tasks/policy.js';
export { serveHttp } from './serve/http.js';
export type { HttpToolService, ServeHttpOptions } from './serve/http.js';
export { createToolServer, DEFAULT_CACHE_HINT, serveStdio } from './serve/server.js';
export type { MessageTransport, ServeStdioOptions, ToolServer, ToolServerOptions } from './serve/server.js';
export type { KitSkillSource } from './serve/skills.js';
export type { ServedEra } from './eras.js';
export { toolResult } from '../results.js';
export type { CacheHint, CallToolResult } from '@modelcontextprotocol/server';
export { contractCases, runContract } from './contract/contract.js';
export type {
  ContractCase,
  ContractEraReport,
  ContractExpectation,
  ContractInput,
  ContractOptions,
  ContractReport,
  ContractResult,
  ContractTool,
} from './contract/contract.js';
export { checkServer } from './contract/server-check.js';
export type { AppCheck, AppProblem } from './contract/app-check.js';
export type {
  CheckCase,
  CheckCaseResult,
  CheckOutcome,
  EraCheck,
  ServerCheckOptions,
  ServerCheckReport,
  ToolCheck,
} from './contract/server-check.js';
