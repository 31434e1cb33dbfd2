// agt-mcp/testing: test doubles and contract suites, shipped as product.
export { storeConformanceSuite } from './store-conformance.js';
export type { StoreConformanceOptions, TestFunction } from './store-conformance.js';
export { ScriptedModel } from './scripted-model.js';
export type { ScriptedInput, ScriptedStep } from './scripted-model.js';
export { contractSuite } from './contract-suite.js';
export { auditStoreConformanceSuite } from './audit-store-conformance.js';
export { runStoreConformanceSuite } from './run-store-conformance.js';
export type { RunStoreConformanceOptions } from './run-store-conformance.js';
export { fixtureServer } from './fixture.js';
export { fixtureTools } from './fixture-tools.js';
export { tokenStoreConformanceSuite } from './token-store-conformance.js';
