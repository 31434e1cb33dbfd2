/**
 * The other process of the fleet bench's announcement figure: watches a
 * PostgresRunStore, prints "ready", then one line per announcement — its
 * revision and when it arrived (this machine's clock, sub-millisecond) — until
 * stdin closes. Args: <pg url> <runs table>
 */
import { PostgresRunStore } from '../src/storage/postgres.js';

const [url, table] = process.argv.slice(2) as [string, string];
const store = new PostgresRunStore({ connectionString: url, table });
const watch = await store.watch((a) =>
  console.log(JSON.stringify({ revision: a.revision, at: performance.timeOrigin + performance.now() })),
);
console.log('ready');
process.stdin.resume();
process.stdin.on('end', () => void watch.close().then(() => store.close()));
