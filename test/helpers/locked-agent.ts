/**
 * The arrange of most runtime tests: a real `@a2a-js/sdk` agent on 127.0.0.1, locked by `a2a lock`
 * (in process) in a fresh temporary project, then read with `loadLock` as often as the test needs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadLockOptions, type Lock, loadLock } from '../../src/runtime/index.js';
import { type StartAgentOptions, type StartedAgent, startAgent } from './agents.js';
import { JSONRPC_PROFILE, lockProject } from './lock-project.js';

/** A started and locked agent (see {@link startLockedAgent}). */
export interface LockedAgentProject {
  agent: StartedAgent;
  /** The project folder: `a2a.json` and `a2a.lock.json`. */
  dir: string;
  /** The lockfile's path. */
  lockfile: string;
  /** `loadLock` of this project's lockfile, with `options`. */
  load(options?: Omit<LoadLockOptions, 'lockfile'>): Promise<Lock>;
  /** Stop the agent and remove the folder (for afterAll; safe after a failed start). */
  close(): Promise<void>;
}

/**
 * Start an SDK agent with `options`, write an `a2a.json` with `profile` (default
 * {@link JSONRPC_PROFILE}) and the `agents` made from the started agent, and lock it (exit 0, or
 * the test fails naming the answer). `env` is the lock's environment (credentials it reads).
 */
export async function startLockedAgent(
  options: StartAgentOptions,
  manifest: {
    profile?: unknown;
    agents: (agent: StartedAgent) => Record<string, unknown>;
    env?: Record<string, string>;
  },
): Promise<LockedAgentProject> {
  const agent = await startAgent(options);
  const dir = await mkdtemp(join(tmpdir(), 'a2a-runtime-'));
  const lockfile = join(dir, 'a2a.lock.json');
  const project: LockedAgentProject = {
    agent,
    dir,
    lockfile,
    load: (loadOptions = {}) => loadLock({ ...loadOptions, lockfile }),
    close: async () => {
      await agent.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await lockProject(
      dir,
      { profile: manifest.profile ?? JSONRPC_PROFILE, agents: manifest.agents(agent) },
      manifest.env,
    );
  } catch (error) {
    await project.close();
    throw error;
  }
  return project;
}
