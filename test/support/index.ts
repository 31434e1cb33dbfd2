/** The shared test helpers, one place for every test folder. */
export * from './paths.js';
export * from './servers.js';
export * from './runs.js';
export * from './cli.js';
export * from './results.js';
export * from './json-rpc.js';
export * from './waiting.js';
