/**
 * A TCP proxy on loopback in front of a real server, to cut a store's connections the ways a network does: it
 * passes bytes ('pass'), refuses connections — every connection closed at once, as a restarting server does
 * ('refuse') — or goes silent ('freeze': nothing forwarded, nothing closed, as a cable pulled out). Tests wait on
 * its events (`until`), never on sleeps.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';

/** What the proxy does with connections: pass bytes, refuse them, or go silent. */
export type ProxyMode = 'pass' | 'refuse' | 'freeze';

/** A TCP proxy on 127.0.0.1 in front of `host:port`; see the module comment. */
export class TcpProxy extends EventEmitter {
  /** Connections accepted in all, and those refused (closed at once). */
  connections = 0;
  refused = 0;
  #mode: ProxyMode = 'pass';
  readonly #sockets = new Set<net.Socket>();
  readonly #server: net.Server;

  private constructor(host: string, port: number) {
    super();
    this.#server = net.createServer((client) => {
      this.connections += 1;
      client.on('error', () => undefined);
      if (this.#mode === 'refuse') {
        this.refused += 1;
        client.destroy();
        this.emit('change');
        return;
      }
      const upstream = net.connect(port, host);
      upstream.on('error', () => undefined);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      if (this.#mode === 'pass') {
        client.pipe(upstream);
        upstream.pipe(client);
      } else {
        client.pause(); // silent: held open, nothing forwarded
      }
      this.emit('change');
    });
  }

  /** Starts a proxy in front of `host:port`. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(host, port);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The loopback port to connect to. */
  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** Switches mode: 'refuse' closes every open connection; 'freeze' stops forwarding; 'pass' closes the frozen ones. */
  set(mode: ProxyMode): void {
    const before = this.#mode;
    this.#mode = mode;
    if (mode === 'refuse' || (mode === 'pass' && before === 'freeze')) for (const socket of this.#sockets) socket.destroy();
    if (mode === 'freeze')
      for (const socket of this.#sockets) {
        socket.unpipe();
        socket.pause();
      }
  }

  /** Resolves once `done()` holds, checked at each connection the proxy sees. */
  until(done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const look = () => {
        if (!done()) return;
        this.off('change', look);
        resolve();
      };
      this.on('change', look);
      look();
    });
  }

  /** Closes every connection and the listening socket. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
