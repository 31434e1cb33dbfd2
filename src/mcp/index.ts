export { CLIENT_CAPABILITIES, CLIENT_INFO, connectMcp } from './connect.js';
export type { ConnectOptions, McpConnection } from './connect.js';
export { McpProber } from './prober.js';
export type { McpProberOptions, ProbedTool, ProbeReport } from './prober.js';
export { DEFAULT_TIMEOUTS } from './timeouts.js';
export type { Timeouts } from './timeouts.js';
export type { RawTool } from './tools.js';
export { toLaunchSpec } from './launch.js';
export type { LaunchSpec } from './launch.js';
