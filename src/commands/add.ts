/** `a2a add <name> <card>`: add (or extend) an agent in the manifest and lock it, all or nothing. */
import { ExitCode, UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withFileLock } from '../fs/file-lock.js';
import { readManifestFile } from '../fs/manifest.js';
import { own } from '../json-path.js';
import { type AddRetry, shellFlag, shellWord } from '../lock/hints.js';
import { AGENT_NAME } from '../manifest/agent-name.js';
import { type AgentFlags, applyAgentEdit, parseAgentFlags, type WrittenManifest } from '../manifest/flags.js';
import { parseManifest } from '../manifest/parse.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';
import { type LockData, type LockFlags, run } from './lock.js';

/** The arguments of `a2a add`: the agent's name and card, the skills called, and its settings ({@link AgentFlags}). */
export interface AddArgs {
  name: string;
  card: string;
  skills: string[];
  flags: AgentFlags;
  /** The wire probe's flags (`--no-probe`, `--strict`), as `lock` takes them. */
  lock?: LockFlags;
}

/**
 * `a2a add <name> <card> --skill <id>...`: add (or extend) an agent in the manifest and lock it, under
 * the lockfile's lock (two adds at once both land). The agents are written in name order.
 * @throws UsageError a bad name or flag value (exit 2, nothing fetched or written)
 */
export function runAdd(options: GlobalOptions, args: AddArgs): Promise<CommandResult<LockData>> {
  return withFileLock(paths(options).lockfile, () => add(options, args));
}

/** The `a2a add` command line of `args`, to run again with one more flag ({@link AddRetry}). */
function retryOf(args: AddArgs): AddRetry {
  const f = args.flags;
  const words = [
    'a2a add',
    shellWord(args.name),
    shellWord(args.card),
    ...args.skills.map((s) => shellFlag('skill', s)),
    ...(f.credential ?? []).map((c) => `--credential ${shellWord(c)}`),
    ...(f.originAuth ?? []).map((o) => `--origin-auth ${shellWord(o)}`),
    ...(f.cardPath !== undefined ? [`--card-path ${shellWord(f.cardPath)}`] : []),
    ...(f.rebaseInterfaces ? ['--rebase-interfaces'] : []),
    ...(f.allowHttp ? ['--allow-http'] : []),
    ...(args.lock?.probe === false ? ['--no-probe'] : []),
    ...(args.lock?.strict ? ['--strict'] : []),
  ];
  return {
    command: words.join(' '),
    card: args.card,
    ...(f.range !== undefined ? { range: `--range ${shellWord(f.range)}` } : {}),
  };
}

async function add(options: GlobalOptions, args: AddArgs): Promise<CommandResult<LockData>> {
  const p = paths(options);
  if (!AGENT_NAME.test(args.name))
    throw new UsageError(
      `agent name "${args.name}": use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    );
  const edit = parseAgentFlags(args.flags);
  // Edit the file as the user wrote it (read once: it exists and is valid; no defaults filled in).
  // An existing agent keeps its other fields (profile, trust, ...), gains the skills and settings
  // given, and is locked like any manifest change: its locked plans do not move unless `a2a update` says so.
  const { text: current, written } = await readManifestFile(p.manifest, p.lookedUpTo);
  const raw = written as WrittenManifest;
  const existing = own(raw.agents ?? {}, args.name) ?? {};
  const skills = [...new Set([...((existing.skills as string[] | undefined) ?? []), ...args.skills])];
  const entry = { ...existing, card: args.card, skills };
  const text = `${JSON.stringify(applyAgentEdit(raw, args.name, entry, edit, true), null, 2)}\n`;
  const updated = parseManifest(text, p.manifest);
  // The manifest is written first: a lockfile behind its manifest is repaired by `a2a lock`; one
  // ahead of it (naming an agent the manifest lacks) would not be.
  const result = await run(
    options,
    updated,
    undefined,
    async () => {
      if (text !== current) await writeFileAtomic(p.manifest, text);
    },
    {
      add: { name: args.name, retry: retryOf(args) },
      // A new card for a locked agent that goes beyond its lock: `a2a update <name>` alone would
      // re-read the old card (the manifest was not written); the command that moves it is this one.
      drift: (name) =>
        name === args.name && existing.card !== undefined && existing.card !== args.card
          ? `a2a update ${name} --card ${args.card}`
          : undefined,
    },
    args.lock,
  );
  result.data.human.manifest = {
    path: p.manifest,
    outcome: result.exitCode !== ExitCode.Ok ? 'not-written' : text === current ? 'up-to-date' : 'written',
  };
  return result;
}
