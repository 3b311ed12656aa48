/**
 * A stream that breaks mid-task (the connection dropped after the Task arrived) falls back to
 * polling GetTask with the task id it has, against a real SDK server running a long task.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runLock } from '../../src/commands/lock.js';
import { type FallbackEvent, loadLock } from '../../src/runtime/index.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { sdkText } from '../helpers/sdk-message.js';

let agent: StartedAgent;
let dir: string;

beforeAll(async () => {
  agent = await startAgent({
    card: (origin) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }),
    taskDelayMs: 300,
  });
  dir = await mkdtemp(join(tmpdir(), 'a2a-runtime-break-'));
  const profile = {
    bindings: ['JSONRPC'],
    versions: ['1.0'],
    accepts: ['application/json', 'text/plain'],
    sends: ['text/plain'],
    streaming: true,
  };
  await writeFile(
    join(dir, 'a2a.json'),
    JSON.stringify({ profile, agents: { research: { card: agent.origin, skills: ['market-size'] } } }),
  );
  expect(
    (await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} })).exitCode,
  ).toBe(0);
});

afterAll(async () => {
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('the connection drops after the Task event: GetTask polls with that task id until it completes', async () => {
  const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json') });
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
