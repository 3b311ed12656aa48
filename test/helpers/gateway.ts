/**
 * A platform gateway in front of a real SDK agent, as Cloud Run, AgentCore or Gemini Enterprise
 * put one (issue 24): a node:http server on 127.0.0.1 that demands one placement on every request
 * (a bearer token, a custom header, or an AWS SigV4 signature it checks by signing the request
 * again with `@smithy/signature-v4` and fixed test credentials), answers 401 otherwise, serves the
 * agent's card at `/v1/card`, forwards everything else to the agent (the placement's header
 * removed), and records every request it received.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { type HttpServer, startHttp } from './http.js';

/** The fixed test credentials of the SigV4 gateway. */
export const AWS_TEST = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-t0ken-for-tests',
} as const;

/** What a gateway demands. */
export type Demand =
  | { bearer: string }
  | { header: string; value: string }
  | { awsSigV4: { region: string; service: string } };

/** A started gateway: its server (origin, requests) and how many requests it let through. */
export interface Gateway extends HttpServer {
  /** Requests that carried the placement (forwarded or answered). */
  passed: number;
  /** Requests refused 401. */
  refused: number;
}

class Sha256 {
  readonly #hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    const key =
      secret === undefined
        ? undefined
        : typeof secret === 'string'
          ? secret
          : secret instanceof ArrayBuffer
            ? new Uint8Array(secret)
            : new Uint8Array(secret.buffer, secret.byteOffset, secret.byteLength);
    this.#hash = key === undefined ? createHash('sha256') : createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(
      typeof data === 'string'
        ? data
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    );
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
  reset(): void {
    /* one digest per instance: nothing to reset */
  }
}

/** `20250101T000000Z` → Date. */
function amzDate(value: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return new Date(NaN);
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/**
 * Whether a request carries a valid SigV4 signature for `scope` and {@link AWS_TEST}: the signed
 * headers it names, its method, path, query and body signed again at its `x-amz-date` must give
 * its `authorization` exactly.
 */
async function sigV4Valid(
  req: http.IncomingMessage,
  body: Buffer,
  scope: { region: string; service: string },
): Promise<boolean> {
  const authorization = req.headers.authorization ?? '';
  const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';');
  const date = req.headers['x-amz-date'];
  if (!signedNames || typeof date !== 'string') return false;
  const headers: Record<string, string> = {};
  for (const name of signedNames) {
    const value = req.headers[name];
    if (typeof value !== 'string') return false;
    headers[name] = value;
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const signer = new SignatureV4({
    credentials: AWS_TEST,
    region: scope.region,
    service: scope.service,
    sha256: Sha256,
    applyChecksum: true,
    uriEscapePath: true,
  });
  const signed = await signer.sign(
    {
      method: req.method ?? 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers,
      body: body.length ? body.toString('utf8') : undefined,
    },
    { signingDate: amzDate(date) },
  );
  return (
    signed.headers.authorization === authorization && req.headers['x-amz-security-token'] === AWS_TEST.sessionToken
  );
}

/** Read a request's whole body. */
function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Start a gateway to `target` (the agent's origin, `http://127.0.0.1:<port>`) demanding `demand`.
 * `/v1/card` answers with the agent's card (`/.well-known/agent-card.json`).
 */
export async function startGateway(target: string, demand: Demand): Promise<Gateway> {
  const stats = { passed: 0, refused: 0 };
  const server = await startHttp((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      let ok: boolean;
      let strip: string[] = [];
      if ('bearer' in demand) {
        ok = req.headers.authorization === `Bearer ${demand.bearer}`;
        strip = ['authorization'];
      } else if ('header' in demand) {
        ok = req.headers[demand.header.toLowerCase()] === demand.value;
        strip = [demand.header.toLowerCase()];
      } else {
        ok = await sigV4Valid(req, body, demand.awsSigV4);
        strip = ['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256'];
      }
      if (!ok) {
        stats.refused++;
        res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' });
        res.end(JSON.stringify({ error: 'unauthenticated at the gateway' }));
        return;
      }
      stats.passed++;
      const path = (req.url ?? '/').split('?')[0] === '/v1/card' ? '/.well-known/agent-card.json' : (req.url ?? '/');
      const headers = { ...req.headers };
      for (const name of strip) delete headers[name];
      delete headers.host;
      const upstream = http.request(`${target}${path}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    })();
  });
  return Object.defineProperties(server, {
    passed: { get: () => stats.passed },
    refused: { get: () => stats.refused },
  }) as Gateway;
}
