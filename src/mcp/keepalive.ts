/**
 * A keepalive for long-lived connections (pooled, or held by a host for
 * hours): a ping every `intervalMs` while nothing else is in flight; a ping
 * not answered within the interval ends the connection, so the next request
 * fails at once with connection_closed instead of waiting for its own timeout.
 */
import { AgtError } from '../errors.js';
import type { RequestOptions } from './connection-types.js';
import { checkMs } from '../check-ms.js';

/** What a keepalive needs of its connection (an McpConnection, which imports this file: named here by shape). */
interface Pinged {
  readonly closed: boolean;
  readonly inFlight: number;
  ping(options?: RequestOptions): Promise<number>;
  close(): Promise<void>;
}

/** Starts the keepalive of `connection`; `onDead` is told why it ended one. Returns the stop (also stopped once the connection closes). */
export function keepAlive(connection: Pinged, intervalMs: number, onDead: (error: AgtError) => void): () => void {
  let pinging = false;
  const stop = () => clearInterval(timer);
  const timer = setInterval(() => {
    if (connection.closed) return stop();
    if (pinging || connection.inFlight > 0) return;
    pinging = true;
    connection
      .ping({ timeoutMs: intervalMs })
      .catch(() => {
        if (connection.closed) return;
        onDead(
          new AgtError(
            'connection_closed',
            `the server did not answer a keepalive ping within ${intervalMs} ms; the connection was ended`,
            {
              details: { reason: 'ping_timeout', pingIntervalMs: intervalMs },
            },
          ),
        );
        return connection.close();
      })
      .finally(() => (pinging = false));
  }, intervalMs);
  timer.unref(); // a keepalive never keeps the host alive
  return stop;
}

/** Checks a ping interval: invalid_input unless a whole number of milliseconds, at least 100. */
export function checkPingInterval(value: number | undefined): void {
  checkMs(value, 'pingIntervalMs', { whole: true, min: 100 });
}
