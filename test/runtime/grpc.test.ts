/**
 * gRPC plans through the SDK's gRPC transport against the SDK's gRPC server on 127.0.0.1: the
 * call interceptor sets a2a-version, a2a-extensions and the credential, and refuses off-plan calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcFirstCard, type StartedAgent, sampleCard } from '../helpers/agents.js';
import { startHttp } from '../helpers/http.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';
import { sdkText } from '../helpers/sdk-message.js';

const TOKEN = 'grpc-secret';
const CITATIONS = 'https://example.com/ext/citations/v1';
let project: LockedAgentProject;
let agent: StartedAgent;

beforeAll(async () => {
  const profile = {
    bindings: ['GRPC'],
    versions: ['1.0'],
    accepts: ['application/json'],
    sends: ['text/plain'],
    streaming: true,
    extensions: [CITATIONS],
  };
  project = await startLockedAgent(
    {
      grpc: true,
      card: grpcFirstCard(),
    },
    {
      profile,
      agents: (a) => ({
        research: { card: a.origin, skills: ['market-size'], credentials: { bearer: { env: 'G_TOKEN' } } },
        polling: {
          card: a.origin,
          skills: ['market-size'],
          credentials: { bearer: { env: 'G_TOKEN' } },
          profile: { streaming: false },
        },
      }),
    },
  );
  agent = project.agent;
});

afterAll(() => project?.close());

describe('gRPC plans', () => {
  it('SendMessage and SendStreamingMessage carry a2a-version, a2a-extensions and the bearer in metadata', async () => {
    const lock = await project.load({ env: { G_TOKEN: TOKEN } });
    const research = lock.agent('research', 'market-size');
    expect(research.plan).toMatchObject({ url: agent.grpcUrl, protocolBinding: 'GRPC', delivery: 'stream' });
    const client = await research.createClient();
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('over grpc') } as never))).toContain(
      'echo: over grpc',
    );
    const events = [];
    for await (const e of client.sendMessageStream({ message: sdkText('grpc stream') } as never)) events.push(e);
    expect(JSON.stringify(events)).toContain('echo: grpc stream');
    const seen = agent.requests.slice(from);
    expect(seen.map((r) => r.path)).toEqual([
      '/lf.a2a.v1.A2AService/SendMessage',
      '/lf.a2a.v1.A2AService/SendStreamingMessage',
    ]);
    for (const r of seen) {
      expect(r.headers['a2a-version']).toBe('1.0');
      expect(r.headers['a2a-extensions']).toBe(CITATIONS);
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it('a credentials function is told the origin the gRPC channel is dialled at (a loopback host:port: http://host:port)', async () => {
    const asked: unknown[] = [];
    const lock = await project.load({
      credentials: (request) => {
        asked.push(request);
        return TOKEN;
      },
    });
    const client = await lock.agent('research', 'market-size').createClient();
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('told') } as never))).toContain('echo: told');
    expect(asked.length).toBeGreaterThan(0);
    for (const request of asked)
      expect(request).toEqual({
        agent: 'research',
        skill: 'market-size',
        scheme: 'bearer',
        scopes: [],
        origin: `http://${agent.grpcUrl}`,
      });
  });

  it('off-plan calls are refused with nothing sent: a stream on a poll plan, an unlocked output mode, a part type not locked', async () => {
    const lock = await project.load({ env: { G_TOKEN: TOKEN } });
    const polling = await lock.agent('polling', 'market-size').createClient();
    const research = await lock.agent('research', 'market-size').createClient();
    const from = agent.requests.length;
    // The SDK Client itself turns a stream into SendMessage when the card does not stream; call the transport directly.
    const stream = polling.transport.sendMessageStream({ message: sdkText('x') } as never);
    await expect(stream.next()).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/streaming call/),
    });
    await expect(
      research.sendMessage({
        message: sdkText('x'),
        configuration: { acceptedOutputModes: ['application/pdf'] },
      } as never),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    const png = {
      ...sdkText('x'),
      parts: [
        {
          content: { $case: 'raw', value: new Uint8Array([1]) },
          mediaType: 'image/png',
          filename: '',
          metadata: undefined,
        },
      ],
    };
    await expect(research.sendMessage({ message: png } as never)).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/image\/png/),
    });
    await expect(
      lock.agent('research', 'market-size').fetch(agent.jsonRpcUrl, { method: 'POST', body: '{}' }),
    ).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/GRPC is not carried over fetch/),
    });
    expect(agent.requests.length).toBe(from);
  });

  it('an unset credential is the typed credential-unset error before the call starts, for unary and streaming calls', async () => {
    const lock = await project.load({ env: {} });
    const client = await lock.agent('research', 'market-size').createClient();
    const from = agent.requests.length;
    await expect(client.sendMessage({ message: sdkText('x') } as never)).rejects.toMatchObject({
      code: 'credential-unset',
      message: expect.stringMatching(/G_TOKEN/),
    });
    await expect(client.transport.sendMessageStream({ message: sdkText('x') } as never).next()).rejects.toMatchObject({
      code: 'credential-unset',
    });
    await expect(client.getTask({ id: 't', historyLength: undefined, tenant: '' } as never)).rejects.toMatchObject({
      code: 'credential-unset',
    });
    expect(agent.requests.length).toBe(from);
  });
});

describe('gRPC push plans', () => {
  it('a push config whose URL is not the locked pushEndpoint is refused before any call; the locked one goes through', async () => {
    const HOOK = 'https://hook.example/a2a';
    const pushing = await startLockedAgent(
      {
        grpc: true,
        card: (origin, { grpcUrl }) => {
          const card = sampleCard(origin);
          return {
            ...card,
            capabilities: { ...card.capabilities, pushNotifications: true },
            supportedInterfaces: [
              { url: grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' },
              ...card.supportedInterfaces,
            ],
          };
        },
      },
      {
        profile: {
          bindings: ['GRPC'],
          versions: ['1.0'],
          accepts: ['application/json'],
          sends: ['text/plain'],
          pushEndpoint: HOOK,
        },
        agents: (a) => ({
          pusher: { card: a.origin, skills: ['market-size'], credentials: { bearer: { env: 'G_TOKEN' } } },
        }),
      },
    );
    const pusher = pushing.agent;
    try {
      const lock = await pushing.load({ env: { G_TOKEN: TOKEN } });
      const locked = lock.agent('pusher', 'market-size');
      expect(locked.plan).toMatchObject({ protocolBinding: 'GRPC', delivery: 'push' });
      const client = await locked.createClient();
      const from = pusher.requests.length;
      const config = (url: string) => ({ tenant: '', id: '', taskId: '', url, token: '', authentication: undefined });
      await expect(
        client.sendMessage({
          message: sdkText('x'),
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: config('https://attacker.example/hook'),
            historyLength: undefined,
            returnImmediately: false,
          },
        } as never),
      ).rejects.toMatchObject({
        code: 'plan-violation',
        message: expect.stringMatching(/not the locked pushEndpoint/),
      });
      await expect(
        client.createTaskPushNotificationConfig({ ...config('https://attacker.example/hook'), taskId: 't1' } as never),
      ).rejects.toMatchObject({ code: 'plan-violation' });
      expect(pusher.requests.length).toBe(from);
      expect(
        JSON.stringify(
          await client.sendMessage({
            message: sdkText('pushed'),
            configuration: {
              acceptedOutputModes: [],
              taskPushNotificationConfig: config(HOOK),
              historyLength: undefined,
              returnImmediately: false,
            },
          } as never),
        ),
      ).toContain('echo: pushed');
    } finally {
      await pushing.close();
    }
  });
});

describe('gRPC plans with OAuth client credentials', () => {
  it('UNAUTHENTICATED from the agent: the token is renewed once and the call sent once more (unary and streaming), never a loop', async () => {
    const ACCESS = 'grpc-access-token-2';
    const CLIENT_SECRET = 'grpc-client-secret-5';
    /** The tokens the endpoint issues, in order (the last one repeated): the first is already revoked. */
    let issued = ['revoked-token-1', ACCESS];
    const tokenRequests: string[] = [];
    const endpoint = await startHttp((req, res) => {
      req.resume().on('end', () => {
        tokenRequests.push(String(req.headers.authorization));
        const token = issued[Math.min(tokenRequests.length - 1, issued.length - 1)]!;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      });
    });
    const tokenUrl = `${endpoint.origin}/oauth/token`;
    const oauthAgent = await startLockedAgent(
      {
        grpc: true,
        bearerToken: ACCESS,
        card: (origin, { grpcUrl }) => ({
          ...sampleCard(origin),
          supportedInterfaces: [{ url: grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
          securitySchemes: {
            oauth: {
              oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: { 'a2a.read': 'read' } } } },
            },
          },
          securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
        }),
      },
      {
        profile: {
          bindings: ['GRPC'],
          versions: ['1.0'],
          accepts: ['application/json'],
          sends: ['text/plain'],
          streaming: true,
        },
        agents: (a) => ({
          research: {
            card: a.origin,
            skills: ['market-size'],
            credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
          },
        }),
      },
    );
    const guarded = oauthAgent.agent;
    try {
      const options = { env: { CID: 'client-1', CSECRET: CLIENT_SECRET } };
      const calls = () => guarded.requests.filter((r) => r.method === 'GRPC').map((r) => r.headers.authorization);

      const client = await (await oauthAgent.load(options)).agent('research', 'market-size').createClient();
      expect(JSON.stringify(await client.sendMessage({ message: sdkText('renewed') } as never))).toContain(
        'echo: renewed',
      );
      expect(calls()).toEqual(['Bearer revoked-token-1', `Bearer ${ACCESS}`]);
      expect(tokenRequests).toHaveLength(2);
      // The renewed token is cached: the next call goes once, with it.
      await client.sendMessage({ message: sdkText('again') } as never);
      expect(calls().slice(2)).toEqual([`Bearer ${ACCESS}`]);
      expect(tokenRequests).toHaveLength(2);

      // A stream refused before its first event: renewed and opened once more.
      issued = ['revoked-token-3', ACCESS];
      tokenRequests.length = 0;
      guarded.requests.length = 0;
      const streaming = await (await oauthAgent.load(options)).agent('research', 'market-size').createClient();
      const events = [];
      for await (const e of streaming.sendMessageStream({ message: sdkText('stream renewed') } as never))
        events.push(e);
      expect(JSON.stringify(events)).toContain('echo: stream renewed');
      expect(calls()).toEqual(['Bearer revoked-token-3', `Bearer ${ACCESS}`]);
      expect(tokenRequests).toHaveLength(2);

      // Always refused: one retry, then the typed error.
      issued = ['always-refused'];
      guarded.requests.length = 0;
      const refused = await (await oauthAgent.load(options)).agent('research', 'market-size').createClient();
      await expect(refused.sendMessage({ message: sdkText('no') } as never)).rejects.toMatchObject({
        code: 'auth-refused',
      });
      expect(calls()).toEqual(['Bearer always-refused', 'Bearer always-refused']);
      expect(JSON.stringify(guarded.requests.map((r) => r.headers))).not.toContain(CLIENT_SECRET);
    } finally {
      await oauthAgent.close();
      await endpoint.close();
    }
  });
});
