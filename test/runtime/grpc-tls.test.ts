/**
 * gRPC transport security (issue 15, "Transport"): TLS by default, plaintext only to loopback or
 * with `allowInsecureGrpc`, and `grpcChannelCredentials` for a private CA and mutual TLS. Against
 * the SDK's gRPC server on 127.0.0.1 with certificates made by `openssl` at test time (a CA, a
 * server certificate for 127.0.0.1 and localhost, a client certificate).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcChannel } from '../../src/runtime/grpc.js';
import { loadLock } from '../../src/runtime/index.js';
import { grpcFirstCard, type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { lockProject } from '../helpers/lock-project.js';
import { sdkText } from '../helpers/sdk-message.js';

const TOKEN = 'grpc-tls-secret';
/** Every agent's credential: a bearer token from G_TOKEN. */
const CREDENTIALS = { bearer: { env: 'G_TOKEN' } };

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A CA, a server certificate (127.0.0.1, localhost) and a client certificate, PEM, made by openssl. */
function makeCertificates(dir: string) {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=a2a-lock test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    run(
      'req',
      ...ec,
      '-keyout',
      `${who}.key`,
      '-out',
      `${who}.csr`,
      '-subj',
      `/CN=${who === 'server' ? 'localhost' : 'a2a-lock test client'}`,
    );
    run(
      'x509',
      '-req',
      '-in',
      `${who}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${who}.crt`,
      '-days',
      '2',
      '-extfile',
      `${who}.ext`,
    );
  }
  const read = (name: string) => readFileSync(join(dir, name));
  return {
    ca: read('ca.crt'),
    caPath: join(dir, 'ca.crt'),
    serverKey: read('server.key'),
    serverCert: read('server.crt'),
    clientKey: read('client.key'),
    clientCert: read('client.crt'),
  };
}

const openssl = hasOpenssl();
const certDir = mkdtempSync(join(tmpdir(), 'a2a-grpc-certs-'));
const certs = openssl ? makeCertificates(certDir) : undefined;
// grpc-js reads its default roots file when it loads; here that is the test CA, so "the system's
// roots" trust the test server (grpc-js is first loaded just below).
if (certs) process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH = certs.caPath;
// Loaded only now (a static import would read the roots path before it is set).
const grpc = await import('@grpc/grpc-js');

const PROFILE = {
  bindings: ['GRPC'],
  versions: ['1.0'],
  accepts: ['application/json'],
  sends: ['text/plain'],
  streaming: false,
};

let tlsAgent: StartedAgent;
let mtlsAgent: StartedAgent;
let dir: string;

beforeAll(async () => {
  if (!certs) return;
  const serverPair = [{ private_key: certs.serverKey, cert_chain: certs.serverCert }];
  // TLS: the interface says grpcs://localhost:<port>.
  tlsAgent = await startAgent({
    grpc: true,
    grpcCredentials: grpc.ServerCredentials.createSsl(certs.ca, serverPair, false),
    card: (origin, { grpcUrl }) => {
      const card = sampleCard(origin);
      return {
        ...card,
        supportedInterfaces: [
          { url: `grpcs://localhost:${grpcUrl!.split(':')[1]}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ...card.supportedInterfaces,
        ],
      };
    },
  });
  // Mutual TLS (client certificate required): the interface is the bare localhost:<port> (loopback, so plaintext
  // unless credentials are given). A name, not 127.0.0.1: grpc-js sends the host as the TLS server name (SNI), which
  // RFC 6066 forbids for an IP address (Node warns, DEP0123).
  mtlsAgent = await startAgent({
    grpc: true,
    grpcCredentials: grpc.ServerCredentials.createSsl(certs.ca, serverPair, true),
    card: (origin, { grpcUrl }) => {
      const card = sampleCard(origin);
      return {
        ...card,
        supportedInterfaces: [
          { url: `localhost:${grpcUrl!.split(':')[1]}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ...card.supportedInterfaces,
        ],
      };
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'a2a-runtime-grpc-tls-'));
  await lockProject(dir, {
    profile: PROFILE,
    agents: {
      tls: { card: tlsAgent.origin, skills: ['market-size'], credentials: CREDENTIALS },
      mtls: { card: mtlsAgent.origin, skills: ['market-size'], credentials: CREDENTIALS },
    },
  });
});

afterAll(async () => {
  await tlsAgent?.close();
  await mtlsAgent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  rmSync(certDir, { recursive: true, force: true });
});

describe('the gRPC channel decision (grpcChannel)', () => {
  const violation = (m: string) => new Error(m);
  const decide = (url: string, allowInsecure = false, hasCredentials = false) =>
    grpcChannel(url, { allowInsecure, hasCredentials }, violation);

  it('is TLS by default off loopback, plaintext on loopback, the given credentials whenever given', () => {
    expect(decide('agent.example:443')).toEqual({ target: 'agent.example:443', security: 'tls' });
    expect(decide('grpcs://agent.example:443')).toEqual({ target: 'agent.example:443', security: 'tls' });
    expect(decide('https://agent.example')).toEqual({ target: 'agent.example', security: 'tls' });
    expect(decide('127.0.0.1:50051')).toEqual({ target: '127.0.0.1:50051', security: 'plaintext' });
    expect(decide('[::1]:50051').security).toBe('plaintext');
    expect(decide('localhost:50051').security).toBe('plaintext');
    expect(decide('grpcs://localhost:50051').security).toBe('tls');
    expect(decide('127.0.0.1:50051', false, true).security).toBe('credentials');
    expect(decide('grpc://agent.example:80', false, true).security).toBe('credentials');
  });

  it('refuses plaintext asked for (grpc://, http://) off loopback without allowInsecureGrpc; allows it with', () => {
    expect(() => decide('grpc://10.255.255.1:50051')).toThrow(/plaintext .* not loopback.*allowInsecureGrpc/);
    expect(() => decide('http://agent.example:8080')).toThrow(/not loopback/);
    // 127.0.0.1.example is a name, not a loopback address.
    expect(() => decide('grpc://127.0.0.1.example:1')).toThrow(/not loopback/);
    expect(decide('grpc://10.255.255.1:50051', true)).toEqual({ target: '10.255.255.1:50051', security: 'plaintext' });
    expect(decide('agent.example:443', true).security).toBe('plaintext');
    expect(decide('grpc://127.0.0.2:50051').security).toBe('plaintext');
  });
});

describe.skipIf(!openssl)('gRPC over TLS against the SDK gRPC server', () => {
  it('connects with TLS by default to a grpcs:// interface (the default roots trust the test CA), the bearer in metadata', async () => {
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { G_TOKEN: TOKEN } });
    const client = await lock.agent('tls', 'market-size').createClient();
    const from = tlsAgent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('over tls') } as never))).toContain(
      'echo: over tls',
    );
    const seen = tlsAgent.requests.slice(from);
    expect(seen.map((r) => r.path)).toEqual(['/lf.a2a.v1.A2AService/SendMessage']);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('connects with grpcChannelCredentials carrying the CA and a client certificate (mutual TLS) to a bare localhost:port', async () => {
    const grpcChannelCredentials = grpc.credentials.createSsl(certs!.ca, certs!.clientKey, certs!.clientCert);
    const lock = await loadLock({
      lockfile: join(dir, 'a2a.lock.json'),
      env: { G_TOKEN: TOKEN },
      grpcChannelCredentials,
    });
    const client = await lock.agent('mtls', 'market-size').createClient();
    const from = mtlsAgent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('over mtls') } as never))).toContain(
      'echo: over mtls',
    );
    expect(mtlsAgent.requests.slice(from).map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it('without the client certificate (createClient option), or in plaintext (loopback default), the mTLS server is unreachable', async () => {
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { G_TOKEN: TOKEN } });
    const from = mtlsAgent.requests.length;
    const caOnly = await lock
      .agent('mtls', 'market-size')
      .createClient({ grpcChannelCredentials: grpc.credentials.createSsl(certs!.ca) });
    await expect(caOnly.sendMessage({ message: sdkText('x') } as never)).rejects.toMatchObject({ code: 'unreachable' });
    const lock2 = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { G_TOKEN: TOKEN } });
    const plaintext = await lock2.agent('mtls', 'market-size').createClient();
    await expect(plaintext.sendMessage({ message: sdkText('x') } as never)).rejects.toMatchObject({
      code: 'unreachable',
    });
    expect(mtlsAgent.requests.length).toBe(from);
  });
});

describe('plaintext gRPC', () => {
  let plainAgent: StartedAgent;
  let plainDir: string;

  beforeAll(async () => {
    // The SDK's gRPC server without TLS, its interface spelt grpc://127.0.0.1:<port>.
    plainAgent = await startAgent({
      grpc: true,
      card: grpcFirstCard('grpc://'),
    });
    plainDir = await mkdtemp(join(tmpdir(), 'a2a-runtime-grpc-plaintext-'));
    // A card read from a file may name any host; the plaintext grpc:// interface off loopback needs allowHttp to be locked.
    const offLoopback = sampleCard('https://agent.example', {
      supportedInterfaces: [{ url: 'grpc://10.255.255.1:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    });
    await writeFile(join(plainDir, 'off-loopback-card.json'), JSON.stringify(offLoopback));
    await lockProject(plainDir, {
      profile: PROFILE,
      agents: {
        local: { card: plainAgent.origin, skills: ['market-size'], credentials: CREDENTIALS },
        'off-loopback': {
          card: 'off-loopback-card.json',
          skills: ['market-size'],
          credentials: CREDENTIALS,
          allowHttp: true,
        },
      },
    });
  });

  afterAll(async () => {
    await plainAgent?.close();
    if (plainDir) await rm(plainDir, { recursive: true, force: true });
  });

  it('off loopback is refused by createClient() before any connection without allowInsecureGrpc, though the lockfile allows http', async () => {
    const lock = await loadLock({ lockfile: join(plainDir, 'a2a.lock.json'), env: { G_TOKEN: TOKEN } });
    const agent = lock.agent('off-loopback', 'market-size');
    expect(agent.plan.url).toBe('grpc://10.255.255.1:50051');
    await expect(agent.createClient()).rejects.toMatchObject({
      name: 'PlanViolationError',
      code: 'plan-violation',
      message: expect.stringMatching(/plaintext.*allowInsecureGrpc/),
    });
  });

  it('with loadLock({ allowInsecureGrpc: true }) carries a SendMessage to the locked grpc:// interface and its reply back, the bearer in metadata', async () => {
    const lock = await loadLock({
      lockfile: join(plainDir, 'a2a.lock.json'),
      env: { G_TOKEN: TOKEN },
      allowInsecureGrpc: true,
    });
    const agent = lock.agent('local', 'market-size');
    expect(agent.plan).toMatchObject({ url: `grpc://${plainAgent.grpcUrl}`, protocolBinding: 'GRPC' });
    const client = await agent.createClient();
    const from = plainAgent.requests.length;
    const reply = await client.sendMessage({ message: sdkText('in plaintext') } as never);
    expect(JSON.stringify(reply)).toContain('echo: in plaintext');
    const seen = plainAgent.requests.slice(from);
    expect(seen.map((r) => [r.method, r.path])).toEqual([['GRPC', '/lf.a2a.v1.A2AService/SendMessage']]);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});
