/**
 * A stream that breaks mid-task (the connection dropped after the Task arrived) falls back to
 * polling GetTask with the task id it has, against a real SDK server running a long task.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FallbackEvent } from '../../src/runtime/index.js';
import { type StartedAgent, sampleCard } from '../helpers/agents.js';
import { JSONRPC_PROFILE } from '../helpers/lock-project.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';
import { sdkText } from '../helpers/sdk-message.js';

let project: LockedAgentProject;
let agent: StartedAgent;

beforeAll(async () => {
  project = await startLockedAgent(
    { card: (origin) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }), taskDelayMs: 300 },
    {
      profile: { ...JSONRPC_PROFILE, streaming: true },
      agents: (a) => ({ research: { card: a.origin, skills: ['market-size'] } }),
    },
  );
  agent = project.agent;
});

afterAll(() => project?.close());

it('the connection drops after the Task event: GetTask polls with that task id until it completes', async () => {
  const lock = await project.load();
  const research = lock.agent('research', 'market-size');
  const fallbacks: FallbackEvent[] = [];
  lock.on('fallback', (e: FallbackEvent) => fallbacks.push(e));
  const client = await research.createClient({ pollIntervalMs: 50 });
  const from = agent.requests.length;
  const events: Array<{
    payload?: { $case: string; value: { id?: string; status?: { state: number; message?: unknown } } };
  }> = [];
  const message = sdkText('long job');
  for await (const e of client.sendMessageStream({ message } as never)) {
    events.push(e as never);
    if (events.length === 1) agent.dropConnections();
  }
  expect(events[0]!.payload!.$case).toBe('task');
  const taskId = events[0]!.payload!.value.id!;
  const last = events.at(-1)!.payload!;
  expect(last.$case).toBe('task');
  expect(last.value.id).toBe(taskId);
  expect(last.value.status!.state).toBe(3); // TASK_STATE_COMPLETED
  expect(JSON.stringify(last.value)).toContain('done: long job');
  const bodies = agent.requests.slice(from).filter((r) => r.path === '/a2a/jsonrpc');
  expect(bodies.length).toBeGreaterThanOrEqual(2);
  expect(research.degraded).toBe(false);
  expect(fallbacks).toEqual([
    { agent: 'research', skill: 'market-size', from: 'stream', to: 'poll', reason: 'stream-broken' },
  ]);
  expect(research.fallbacksTaken).toEqual({ 'stream-broken': 1 });
});
