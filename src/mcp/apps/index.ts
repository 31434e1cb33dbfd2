/** MCP Apps on the client side: a tool's `_meta.ui`, an interface's resource and its security metadata. */
export { APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, readToolUi, UI_CAPABILITY, UI_EXTENSION, visibleTo } from './ui-meta.js';
export type { AppVisibility, ToolUi, ToolUiRead } from './ui-meta.js';
export { appResourceOf, isAppMimeType } from './app-resource.js';
export type { AppResource } from './app-resource.js';
export { appAllowAttribute, appCspHeader, checkAppCsp, checkAppPermissions, domainProblem } from './csp.js';
export type { AppCsp, AppPermissions } from './csp.js';
