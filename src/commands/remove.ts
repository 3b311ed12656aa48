/** `a2a remove <agent>...`: drop agents from the manifest and the lockfile in one step. */
import { ExitCode, UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withFileLock } from '../fs/file-lock.js';
import { readLockfile } from '../fs/lockfile.js';
import { readManifestFile } from '../fs/manifest.js';
import { serializeLockfile } from '../lock/format.js';
import { parseManifest } from '../manifest/parse.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/**
 * The answer of `a2a remove`: the `--json` document is `{"ok", "removed": [names], "written": {"manifest", "lockfile"}}`
 * (`lockfile` false when there is none, or it held none of them); `human` holds the two paths.
 */
export interface RemoveData {
  ok: true;
  removed: string[];
  written: { manifest: boolean; lockfile: boolean };
  human: { manifest: string; lockfile: string };
}

/**
 * Remove `names` from `a2a.json` and from the lockfile, both or neither: the new bytes of both are
 * computed (and the manifest validated) first; the lockfile is written (atomically), then the
 * manifest; when the manifest cannot be written, the lockfile's old bytes are written back.
 * @throws UsageError a name the manifest lacks; the errors of an invalid manifest or lockfile (nothing written)
 */
export async function runRemove(options: GlobalOptions, names: string[]): Promise<CommandResult<RemoveData>> {
  const p = paths(options);
  return withFileLock(p.lockfile, async () => {
    const { manifest, written } = await readManifestFile(p.manifest, p.lookedUpTo);
    const unknown = names.filter((name) => !Object.hasOwn(manifest.agents, name));
    if (unknown.length)
      throw new UsageError(
        `unknown agent${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} (manifest agents: ${Object.keys(manifest.agents).join(', ') || 'none'})`,
      );
    const previous = await readLockfile(p.lockfile);
    // The manifest as the user wrote it, minus the agents.
    const raw = written as { agents: Record<string, unknown> };
    const agents = Object.fromEntries(Object.entries(raw.agents).filter(([name]) => !names.includes(name)));
    const text = `${JSON.stringify({ ...raw, agents }, null, 2)}\n`;
    parseManifest(text, p.manifest);
    let lockText: string | undefined;
    if (
      previous &&
      names.some((name) => Object.hasOwn(previous.lock.agents, name) || Object.hasOwn(previous.lock.settings, name))
    ) {
      const keep = <T>(record: Record<string, T>) =>
        Object.fromEntries(Object.entries(record).filter(([name]) => !names.includes(name)));
      lockText = serializeLockfile({
        ...previous.lock,
        agents: keep(previous.lock.agents),
        settings: keep(previous.lock.settings),
      });
    }
    if (lockText !== undefined) await writeFileAtomic(p.lockfile, lockText);
    try {
      await writeFileAtomic(p.manifest, text);
    } catch (error) {
      if (lockText !== undefined) await writeFileAtomic(p.lockfile, previous!.text);
      throw error;
    }
    return {
      exitCode: ExitCode.Ok,
      data: {
        ok: true,
        removed: names,
        written: { manifest: true, lockfile: lockText !== undefined },
        human: { manifest: p.manifest, lockfile: p.lockfile },
      },
      warnings: [],
    };
  });
}
