/**
 * agt-mcp/apps: hosting MCP Apps over a run — the bridge between an app's
 * frame and the run (every call it makes through the run's pipeline), and
 * what a web host builds the app's frame with (its CSP header and `allow`).
 * Needs the optional peer `@modelcontextprotocol/ext-apps`.
 */
export { createAppBridge } from './bridge.js';
export type { AppBridgeOptions } from './bridge.js';
export type { AppHostRun, AppHostTool } from './host-run.js';
export { appAllowAttribute, appCspHeader } from '../mcp/apps/csp.js';
export type { AppCsp, AppPermissions } from '../mcp/apps/csp.js';
export { APP_MIME_TYPE, UI_EXTENSION } from '../mcp/apps/ui-meta.js';
export type { AppResource } from '../mcp/apps/app-resource.js';
