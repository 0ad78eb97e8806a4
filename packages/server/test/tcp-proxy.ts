/**
 * A TCP proxy the fault tests put between the gateway and a database: it forwards bytes both ways
 * until told to `cut` (close every connection, and reset new ones, for a while) or `pause` (stop
 * forwarding, keeping the connections open, for a while) — what a network partition, a restarting
 * database and a stalled one look like to a client library.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private readonly server: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  private refusing = false;
  private paused = false;
  /** Connections accepted (each a client library's new connection). */
  connections = 0;

  private readonly target: { host: string; port: number };

  private constructor(target: { host: string; port: number }, server: Server) {
    this.target = target;
    this.server = server;
  }

  /** Starts a proxy on a free loopback port. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = createServer((client) => proxy.accept(client));
    proxy = new TcpProxy(target, server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  private accept(client: Socket): void {
    this.connections++;
    if (this.refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.paused) {
      client.pause();
      upstream.pause();
    }
  }

  /** Closes every connection and resets new ones for `ms`; resolves once it accepts again. */
  async cut(ms: number): Promise<void> {
    this.refusing = true;
    for (const [a, b] of this.pairs) {
      a.resetAndDestroy();
      b.destroy();
    }
    this.pairs.clear();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.refusing = false;
  }

  /** Stops forwarding for `ms` (connections stay open, bytes wait); resolves once it forwards again. */
  async pause(ms: number): Promise<void> {
    this.paused = true;
    for (const [a, b] of this.pairs) {
      a.pause();
      b.pause();
    }
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.paused = false;
    for (const [a, b] of this.pairs) {
      a.resume();
      b.resume();
    }
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }
}
