// An echo @a2a-js/sdk agent on 127.0.0.1 with no security requirement (so a locked client and a bare
// one send the same bytes apart from what the plan adds), locked in a temporary project as agent
// `research`, skill `market-size` (JSON-RPC 1.0, streaming), by `runLock` of the build.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLock } from '../../dist/commands/lock.js';
import { sampleCard, startAgent } from '../../scripts/agents.js';

/** @returns {Promise<{ agent: { origin: string }, lockfile: string, close(): Promise<void> }>} */
export async function lockedEchoAgent() {
  const agent = await startAgent({
    card: (origin) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }),
  });
  const dir = await mkdtemp(join(tmpdir(), 'a2a-bench-echo-'));
  const close = async () => {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const profile = {
      bindings: ['JSONRPC'],
      versions: ['1.0'],
      accepts: ['application/json'],
      sends: ['text/plain'],
      streaming: true,
      extensions: [],
    };
    await writeFile(
      join(dir, 'a2a.json'),
      JSON.stringify({ profile, agents: { research: { card: agent.origin, skills: ['market-size'] } } }),
    );
    const locked = await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} });
    if (locked.exitCode !== 0) throw new Error(`bench: lock failed: ${JSON.stringify(locked.data)}`);
    return { agent, lockfile: join(dir, 'a2a.lock.json'), close };
  } catch (error) {
    await close();
    throw error;
  }
}
