/** A tiny node:http server on 127.0.0.1 for HTTP-layer faults the SDK cannot produce (e2e and unit tests). */

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** A tiny node:http server for faults the SDK cannot produce. */
export interface HttpServer {
  origin: string;
  /** Every request received: method, path, headers. */
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }>;
  /** Replace the handler (the next request uses it). */
  setHandler(handler: http.RequestListener): void;
  close(): Promise<void>;
}

export async function startHttp(handler: http.RequestListener): Promise<HttpServer> {
  let current = handler;
  const requests: HttpServer['requests'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, headers: { ...req.headers } });
    current(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    setHandler(h) {
      current = h;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closed;
    },
  };
}

/**
 * The fault servers of one test file: `start` one, `close` them all (in `afterAll`).
 */
export function faultServers(): { start(handler: http.RequestListener): Promise<HttpServer>; close(): Promise<void> } {
  const servers: HttpServer[] = [];
  return {
    async start(handler) {
      const server = await startHttp(handler);
      servers.push(server);
      return server;
    },
    async close() {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}

/**
 * A token endpoint for one test file: a node:http server on 127.0.0.1, started before its tests and
 * closed after, answering each request (once its body is read) with `endpoint.answer`.
 */
export function scriptedTokenEndpoint(): { url: string; answer: (res: http.ServerResponse) => void } {
  const servers = faultServers();
  const endpoint = { url: '', answer: (res: http.ServerResponse) => void res.writeHead(500).end() };
  beforeAll(async () => {
    const server = await servers.start((req, res) => {
      req.resume();
      req.on('end', () => endpoint.answer(res));
    });
    endpoint.url = `${server.origin}/oauth/token`;
  });
  afterAll(() => servers.close());
  return endpoint;
}
