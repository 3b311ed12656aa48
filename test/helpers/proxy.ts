/**
 * A forward proxy for tests: tunnels only (HTTP CONNECT), recording each `host:port` it opens and
 * every byte a client sends through it (what a proxy could read of a plain-http request).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY / HTTP_PROXY. */
  origin: string;
  /** The `host:port` of every tunnel opened, in order. */
  tunnels: string[];
  /** Everything clients sent to the proxy (requests to it, bytes through its tunnels), as latin1 text. */
  seen(): string;
  server: Server;
}

/**
 * Start a CONNECT proxy on 127.0.0.1 (random port). `hosts` resolves names as the proxy's own DNS
 * would (`{ 'agent.test': '127.0.0.1' }`): a name only the proxy knows. Close it with
 * `server.closeAllConnections(); server.close()`.
 */
export async function startConnectProxy(hosts: Record<string, string> = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const chunks: Buffer[] = [];
  const server = createServer((req, res) => {
    chunks.push(Buffer.from(`${req.method} ${req.url} ${JSON.stringify(req.headers)}\n`, 'latin1'));
    res.writeHead(405).end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    chunks.push(Buffer.from(`CONNECT ${req.url} ${JSON.stringify(req.headers)}\n`, 'latin1'), head);
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    const [host = '', port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), hosts[host] ?? host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    const close = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', close);
    client.on('error', close);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    seen: () => Buffer.concat(chunks).toString('latin1'),
    server,
  };
}
