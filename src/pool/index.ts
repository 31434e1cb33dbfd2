export { McpPool } from './pool.js';
export type { LeaseRequest, McpLease, McpPoolOptions, PoolStats } from './types.js';
