/**
 * The gRPC fallback paths against the SDK's gRPC server on 127.0.0.1 (as the JSON-RPC ones are
 * tested): a stream the agent no longer supports is retried once as SendMessage (locked poll),
 * VersionNotSupported is retried once on the locked interface of another version, each reported
 * as a `fallback` event; a gRPC A2A error leaves as a typed agent-error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FallbackEvent } from '../../src/runtime/index.js';
import { type AgentCard, type StartedAgent, sampleCard } from '../helpers/agents.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';
import { sdkText } from '../helpers/sdk-message.js';

let project: LockedAgentProject;
let agent: StartedAgent;
let card: AgentCard;

beforeAll(async () => {
  const make = (origin: string, grpcUrl: string) => {
    const base = sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }, { legacy: true });
    return {
      ...base,
      supportedInterfaces: [
        { url: grpcUrl, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ...base.supportedInterfaces,
      ],
    };
  };
  const profile = {
    bindings: ['GRPC', 'JSONRPC'],
    versions: ['1.0', '0.3'],
    accepts: ['application/json'],
    sends: ['text/plain'],
    streaming: true,
  };
  project = await startLockedAgent(
    { grpc: true, legacyCompat: true, card: (origin, { grpcUrl }) => make(origin, grpcUrl!) },
    { profile, agents: (a) => ({ research: { card: a.origin, skills: ['market-size'] } }) },
  );
  agent = project.agent;
  card = make(agent.origin, agent.grpcUrl!);
});

afterAll(() => project?.close());

beforeEach(() => agent.setCard(card));

describe('gRPC fallbacks against the SDK gRPC server', () => {
  it('a stream refused as unsupported is retried once as SendMessage over gRPC (stream → poll)', async () => {
    const lock = await project.load();
    const research = lock.agent('research', 'market-size');
    expect(research.plan).toMatchObject({
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      delivery: 'stream',
      fallbacks: { delivery: ['poll'] },
    });
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const client = await research.createClient();
    agent.setCard({ ...card, capabilities: { ...card.capabilities, streaming: false } });
    const from = agent.requests.length;
    const got = [];
    for await (const e of client.sendMessageStream({ message: sdkText('grpc no stream') } as never)) got.push(e);
    expect(JSON.stringify(got)).toContain('echo: grpc no stream');
    expect(agent.requests.slice(from).map((r) => r.path)).toEqual([
      '/lf.a2a.v1.A2AService/SendStreamingMessage',
      '/lf.a2a.v1.A2AService/SendMessage',
    ]);
    expect(events).toEqual([
      { agent: 'research', skill: 'market-size', from: 'stream', to: 'poll', reason: 'unsupported-operation' },
    ]);
    expect(research.degraded).toBe(false);
  });

  it('VersionNotSupported over gRPC: one retry on the locked JSONRPC 0.3 fallback', async () => {
    const lock = await project.load();
    const research = lock.agent('research', 'market-size');
    const fallback = research.plan.fallbacks!.interfaces.find((i) => i.protocolVersion === '0.3');
    expect(fallback).toMatchObject({ protocolBinding: 'JSONRPC', url: agent.jsonRpcUrl });
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const client = await research.createClient();
    // The agent now serves 0.3 only.
    agent.setCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
    });
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('to 0.3') } as never))).toContain('echo: to 0.3');
    const seen = agent.requests.slice(from);
    expect(seen.map((r) => r.path)).toEqual(['/lf.a2a.v1.A2AService/SendMessage', '/a2a/jsonrpc']);
    expect(seen[1]!.headers['a2a-version']).toBe('0.3');
    expect(events).toEqual([
      {
        agent: 'research',
        skill: 'market-size',
        from: `GRPC 1.0 ${agent.grpcUrl}`,
        to: `JSONRPC 0.3 ${agent.jsonRpcUrl}`,
        reason: 'version-not-supported',
      },
    ]);
    expect(research.fallbacksTaken).toEqual({ 'version-not-supported': 1 });
  });

  it('a gRPC A2A error (TaskNotFound) is a typed agent-error with the gRPC status and reason', async () => {
    const lock = await project.load();
    const client = await lock.agent('research', 'market-size').createClient();
    const error = await client
      .getTask({ id: 'no-such-task', historyLength: undefined, tenant: '' } as never)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'AgentCallError',
      code: 'agent-error',
      agent: 'research',
      skill: 'market-size',
      grpcStatus: 5,
      a2aReason: 'TASK_NOT_FOUND',
    });
  });
});
