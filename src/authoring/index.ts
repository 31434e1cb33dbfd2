// agt-mcp/authoring: author MCP tools with one valibot definition, serve them, test their contract.
export { defineTool, parseArguments, toolError, ToolErrorSignal } from './define-tool.js';
export type { Caller, DefinedTool, ServableTool, TaskSupport, ToolContext, ToolDefinition, ToolOutput } from './define-tool.js';
export { MemoryTaskStore } from './tasks/store.js';
export type { MemoryTaskStoreOptions, TaskRecord, TaskStatus, TaskStore } from './tasks/store.js';
export type { TaskServingOptions } from './tasks/policy.js';
export { serveHttp } from './http.js';
export type { HttpToolService, ServeHttpOptions } from './http.js';
export { createToolServer, DEFAULT_CACHE_HINT, serveStdio } from './server.js';
export type { MessageTransport, ServeStdioOptions, ToolServer, ToolServerOptions } from './server.js';
export type { KitSkillSource } from './skills.js';
export type { ServedEra } from './eras.js';
export { toolResult } from '../results.js';
export type { CacheHint, CallToolResult } from '@modelcontextprotocol/server';
export { contractCases, runContract } from './contract.js';
export type {
  ContractCase,
  ContractEraReport,
  ContractExpectation,
  ContractInput,
  ContractOptions,
  ContractReport,
  ContractResult,
  ContractTool,
} from './contract.js';
export { checkServer } from './server-check.js';
export type {
  CheckCase,
  CheckCaseResult,
  CheckOutcome,
  EraCheck,
  ServerCheckOptions,
  ServerCheckReport,
  ToolCheck,
} from './server-check.js';
