export { McpPool } from './pool.js';
export type { LeaseRequest, McpLease, McpPoolOptions, PoolKeyStats, PoolStats } from './pool.js';
