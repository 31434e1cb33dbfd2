export { McpPool } from './pool.js';
export type { LeaseRequest, McpLease, McpPoolOptions, PoolClock, PoolKeyStats, PoolStats } from './types.js';
export type { PoolAuditSink, PoolEvent } from './events.js';
