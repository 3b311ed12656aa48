/**
 * Servers that lie (issue 37): a real card whose one interface is not served as it says, for the
 * wire probe's tests (`a2a lock` and `a2a verify --probe`). Real servers on 127.0.0.1 with random
 * ports, none a mock of A2A: a node:http server (the card, and the interface's path answering what a
 * web framework answers when nothing there speaks A2A) and, for gRPC, a grpc-js server without the
 * A2A service.
 *
 * - `html-404`: the card names JSON-RPC 1.0 at `/a2a/jsonrpc`, which answers an HTML 404 (an
 *   Express-style "Cannot POST" page);
 * - `non-a2a-500`: the card names JSON-RPC 1.0 (or 0.3, `version`) at `/a2a/jsonrpc`, which answers
 *   HTTP 500 with the framework's own JSON (`{"detail": "Internal Server Error"}`), not JSON-RPC;
 * - `grpc-unimplemented`: the card names GRPC 1.0 at a grpc-js server that serves no service, so
 *   every call ends UNIMPLEMENTED.
 *
 * And one that tells the truth at length, for the probe's read bound:
 *
 * - `large-task-not-found`: the card names JSON-RPC 1.0 (or 0.3) at `/a2a/jsonrpc`, which answers a valid
 *   TaskNotFound (-32001, with the google.rpc.ErrorInfo `TASK_NOT_FOUND`) whose `error.data` also carries
 *   a debug detail of `dataBytes` bytes, after the code, as a server that attaches a trace does.
 *
 * The card has no security requirement (a lock needs no credential) and one skill, `market-size`.
 */
import { sampleCard } from './agents.js';
import { type HttpServer, startHttp } from './http.js';

/** How the interface lies (see the module comment). */
export type Lie = 'html-404' | 'non-a2a-500' | 'grpc-unimplemented' | 'large-task-not-found';

export interface LyingServer {
  /** e.g. http://127.0.0.1:54321 (the card's server). */
  origin: string;
  /** origin + '/.well-known/agent-card.json' */
  cardUrl: string;
  /** The interface the card names (`http://…/a2a/jsonrpc`, or `127.0.0.1:<port>` for gRPC). */
  interfaceUrl: string;
  /** The interface's binding as the card names it (`JSONRPC` or `GRPC`). */
  binding: 'JSONRPC' | 'GRPC';
  /** Requests to the card's server (the card, the probe's POST). */
  requests: HttpServer['requests'];
  close(): Promise<void>;
}

/**
 * Start a server that lies as `lie` says; `version` is the interface's protocol version (default 1.0);
 * `dataBytes`, the size of `large-task-not-found`'s debug detail. Always `close()` it.
 */
export async function startLyingServer(lie: Lie, version = '1.0', dataBytes = 20_000): Promise<LyingServer> {
  let grpcUrl: string | undefined;
  let closeGrpc: () => Promise<void> = async () => undefined;
  if (lie === 'grpc-unimplemented') {
    const grpc = await import('@grpc/grpc-js');
    // No service added: grpc-js answers every call UNIMPLEMENTED.
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) =>
        error ? reject(error) : resolve(p),
      ),
    );
    grpcUrl = `127.0.0.1:${port}`;
    closeGrpc = () => new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
  let origin = '';
  const card = () => {
    const interfaceUrl = grpcUrl ?? `${origin}/a2a/jsonrpc`;
    return sampleCard(origin, {
      supportedInterfaces: [
        { url: interfaceUrl, protocolBinding: grpcUrl ? 'GRPC' : 'JSONRPC', protocolVersion: version },
      ],
      securitySchemes: {},
      securityRequirements: [],
      capabilities: { streaming: false, pushNotifications: false },
    });
  };
  const http = await startHttp((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(card()));
      return;
    }
    req.resume();
    if (lie === 'large-task-not-found' && req.method === 'POST' && path === '/a2a/jsonrpc') {
      const data = [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' },
        { '@type': 'type.googleapis.com/google.rpc.DebugInfo', detail: 'x'.repeat(dataBytes) },
      ];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Task not found', data } }));
      return;
    }
    if (lie === 'non-a2a-500' && path === '/a2a/jsonrpc') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Internal Server Error' }));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Error</title></head>\n<body><pre>Cannot ${req.method} ${path}</pre></body>\n</html>\n`,
    );
  });
  origin = http.origin;
  return {
    origin,
    cardUrl: `${origin}/.well-known/agent-card.json`,
    interfaceUrl: grpcUrl ?? `${origin}/a2a/jsonrpc`,
    binding: grpcUrl ? 'GRPC' : 'JSONRPC',
    requests: http.requests,
    async close() {
      await Promise.all([http.close(), closeGrpc()]);
    },
  };
}
