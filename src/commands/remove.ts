/** `a2a remove <agent>...`: drop agents (or, with `--skill`, skills of one agent) from the manifest and the lockfile in one step. */
import { ExitCode, UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withFileLock } from '../fs/file-lock.js';
import { readLockfile } from '../fs/lockfile.js';
import { readManifestFile } from '../fs/manifest.js';
import { own } from '../json-path.js';
import { serializeLockfile } from '../lock/format.js';
import { entryOrigins } from '../lock/satisfies.js';
import type { LockEntry, Lockfile } from '../lock/schema.js';
import { parseManifest } from '../manifest/parse.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/**
 * The answer of `a2a remove`: the `--json` document is `{"ok", "removed": [names], "written": {"manifest", "lockfile"}}`
 * (`lockfile` false when there is none, or it held none of them), with `--skill` also `"skills": [ids]`
 * (then `removed` is the one agent whose skills went); `human` holds the two paths.
 */
export interface RemoveData {
  ok: true;
  removed: string[];
  skills?: string[];
  written: { manifest: boolean; lockfile: boolean };
  human: { manifest: string; lockfile: string };
}

/**
 * Remove `names` from `a2a.json` and from the lockfile, both or neither: the new bytes of both are
 * computed (and the manifest validated) first; the lockfile is written (atomically), then the
 * manifest; when the manifest cannot be written, the lockfile's old bytes are written back.
 * `skills` (`--skill`, one agent): remove just those skills from its manifest entry and their plans
 * from its lock entry.
 * @throws UsageError a name the manifest lacks; a skill the entry lacks; every skill of the entry; the errors of an invalid manifest or lockfile (nothing written)
 */
export async function runRemove(
  options: GlobalOptions,
  args: { agents: string[]; skills?: string[] },
): Promise<CommandResult<RemoveData>> {
  const names = args.agents;
  const skills = [...new Set(args.skills ?? [])];
  if (skills.length && names.length !== 1)
    throw new UsageError(`--skill needs exactly one agent (a2a remove <agent> --skill <skill>); got ${names.length}`);
  const p = paths(options);
  return withFileLock(p.lockfile, async () => {
    const { manifest, written } = await readManifestFile(p.manifest, p.lookedUpTo);
    const unknown = names.filter((name) => !Object.hasOwn(manifest.agents, name));
    if (unknown.length)
      throw new UsageError(
        `unknown agent${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} (manifest agents: ${Object.keys(manifest.agents).join(', ') || 'none'})`,
      );
    const previous = await readLockfile(p.lockfile);
    const raw = written as { agents: Record<string, Record<string, unknown>> };
    const edit = skills.length
      ? withoutSkills(raw, previous?.lock, names[0]!, manifest.agents[names[0]!]!.skills, skills)
      : withoutAgents(raw, previous?.lock, names);
    const text = `${JSON.stringify(edit.manifest, null, 2)}\n`;
    parseManifest(text, p.manifest);
    const lockText = edit.lock ? serializeLockfile(edit.lock) : undefined;
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
        ...(skills.length ? { skills } : {}),
        written: { manifest: true, lockfile: lockText !== undefined },
        human: { manifest: p.manifest, lockfile: p.lockfile },
      },
      warnings: [],
    };
  });
}

/** The manifest as written and the lockfile (when it changes) without the agents `names`. */
function withoutAgents(
  raw: { agents: Record<string, unknown> },
  lock: Lockfile | undefined,
  names: string[],
): { manifest: unknown; lock?: Lockfile } {
  const keep = <T>(record: Record<string, T>) =>
    Object.fromEntries(Object.entries(record).filter(([name]) => !names.includes(name)));
  // The manifest as the user wrote it, minus the agents.
  const manifest = { ...raw, agents: keep(raw.agents) };
  if (!lock || !names.some((name) => Object.hasOwn(lock.agents, name) || Object.hasOwn(lock.settings, name)))
    return { manifest };
  return { manifest, lock: { ...lock, agents: keep(lock.agents), settings: keep(lock.settings) } };
}

/**
 * The manifest as written without `skills` of agent `name` (whose skills are `listed`), and the
 * lockfile (when it locks the agent) without their plans; the origins its `originAuth` records
 * for plans alone go with them.
 * @throws UsageError a skill the agent does not list, or every one it lists (an agent without skills locks its agent-level plan)
 */
function withoutSkills(
  raw: { agents: Record<string, Record<string, unknown>> },
  lock: Lockfile | undefined,
  name: string,
  listed: readonly string[],
  skills: readonly string[],
): { manifest: unknown; lock?: Lockfile } {
  const absent = skills.filter((s) => !listed.includes(s));
  if (absent.length)
    throw new UsageError(
      `${name} does not list skill${absent.length > 1 ? 's' : ''} ${absent.map((s) => `"${s}"`).join(', ')} (its skills: ${listed.map((s) => `"${s}"`).join(', ') || 'none'})`,
    );
  const left = listed.filter((s) => !skills.includes(s));
  if (left.length === 0)
    throw new UsageError(
      `${name} would list no skill (an agent without skills locks its agent-level plan "*"): remove the agent instead (a2a remove ${name}), or add the skill it calls now first (a2a add ${name} <card> --skill <id>)`,
    );
  const manifest = { ...raw, agents: { ...raw.agents, [name]: { ...raw.agents[name], skills: left } } };
  const entry = lock ? own(lock.agents, name) : undefined;
  if (!lock || !entry || !skills.some((s) => Object.hasOwn(entry.plans, s))) return { manifest };
  const plans = Object.fromEntries(Object.entries(entry.plans).filter(([skill]) => !skills.includes(skill)));
  const next: LockEntry = { ...entry, plans };
  if (entry.originAuth) {
    // An origin only a removed plan went to is no longer one the agent's requests go to.
    const before = new Set(entryOrigins(entry));
    const after = new Set(entryOrigins(next));
    const kept = Object.entries(entry.originAuth).filter(([origin]) => after.has(origin) || !before.has(origin));
    if (kept.length) next.originAuth = Object.fromEntries(kept);
    else delete next.originAuth;
  }
  return { manifest, lock: { ...lock, agents: { ...lock.agents, [name]: next } } };
}
