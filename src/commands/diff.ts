/**
 * `a2a diff [<base>] [<head>]`: review what changed between two lockfiles, agent by agent, with a
 * risk code and level per change ({@link diffLockfiles}). Each side is a git revision (the lockfile
 * read with `git show <commit>:<path>`) or a file: spelt `./file`, absolute, or after `--`; under
 * CI ({@link underCi}) a bare word is always a revision; elsewhere it is a file when a path exists
 * there and it is no revision, a revision when no such path exists, and refused when it is both
 * (as git does). Defaults: base = the review base when CI
 * names one ({@link ciBase}), else `HEAD`; head = the lockfile in the
 * working tree. A side without a lockfile: every agent added (or removed). `--git-external`: the
 * seven arguments git passes an external diff driver. Never writes, never fetches.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import type { Warning } from '../card/model.js';
import { A2aLockError, ExitCode, UsageError } from '../errors.js';
import { readTextIfExists } from '../fs/atomic-write.js';
import { type CiSource, ciBase, gitRoot, isCommit, readAtRevision, readResolved, underCi } from '../fs/git.js';
import { readManifest } from '../fs/manifest.js';
import { memberLines } from '../json-document.js';
import { parseLockfile, parseLockfileWithDigest } from '../lock/format.js';
import {
  type AgentDiff,
  type DiffCounts,
  type DiffManifests,
  diffLockfiles,
  failsOn,
  ignoreRisks,
  type PolicyChange,
} from '../lock/lockfile-diff.js';
import { RISK_CODES, type RiskLevel } from '../lock/risk-codes.js';
import type { Lockfile } from '../lock/schema.js';
import { parseManifest } from '../manifest/parse.js';
import type { Manifest } from '../manifest/schema.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';
import { type AgentFiles, locateAgents, repositoryPath } from './locate.js';

/** The codes `--ignore` takes: every risk code ({@link RISK_CODES}). */
export const IGNORABLE_RISK_CODES: readonly string[] = Object.keys(RISK_CODES);

/** `--fail-on` thresholds. */
const FAIL_ON = ['high', 'medium', 'low', 'any'] as const;
type FailOn = (typeof FAIL_ON)[number];

/** Where one side of the diff was read. */
interface DiffSide {
  /** `revision`: git show; `file`: a path; `worktree`: the lockfile in the working tree; `git-external`: a file git handed over. */
  kind: 'revision' | 'file' | 'worktree' | 'git-external';
  /** The revision or the path, as given (or the lockfile's path; the commit of a CI base). */
  label: string;
  /** A revision: the fully qualified ref it resolved through (`refs/heads/main`; for a CI base `refs/remotes/origin/main`, or GitLab's commit); absent for a commit or an expression such as `HEAD~1`. */
  ref?: string;
  /** A revision: the commit the lockfile was read at. */
  commit?: string;
  /** The CI base: the variable that named it (its commit is the merge-base of HEAD and `ref`). */
  source?: CiSource;
  /** Whether a lockfile was there (none: every agent added or removed). */
  found: boolean;
}

/** One agent of the `--json` document: {@link AgentDiff} without its name (the key). */
type DiffAgentDocument = Omit<AgentDiff, 'name'>;

/** The agents of a diff's data, in order, each with its name (what the renderers take). */
export function diffAgents(data: Pick<DiffData, 'agents' | 'human'>): AgentDiff[] {
  return data.human.names.map((name) => ({ name, ...data.agents[name]! }));
}

/**
 * The answer of `a2a diff`. The `--json` document is `{"ok", "base", "head", "failOn"?, "counts",
 * "agents": {name: DiffAgentDocument}}` (plus `warnings`); `ok` is false when `--fail-on` failed.
 * `human` holds the agents' names in order, the head lockfile's path and the line in it of each head
 * agent at high or medium risk (what annotations point at), and the manifest's and the lockfile's
 * paths from the repository root (their file names outside git): what the markdown's marker and
 * title name.
 */
export interface DiffData {
  ok: boolean;
  base: DiffSide;
  head: DiffSide;
  failOn?: FailOn;
  counts: DiffCounts;
  /** The manifests' `credentialDestinations`, when it changed (`credential-policy-changed`, once for the review). */
  policy?: PolicyChange;
  agents: Record<string, DiffAgentDocument>;
  human: {
    names: string[];
    lockfile: string;
    manifest: string;
    lines: Record<string, number>;
    /** The head lockfile's digest (`lock/digest.ts`), when asked for ({@link DiffArgs.headDigest}) and there is one: the markdown marker's. */
    digest?: string;
    /** With {@link DiffArgs.locate}: the head lockfile and manifest findings point at, with each agent's line. */
    files?: AgentFiles;
  };
}

/** The arguments of `a2a diff`. */
export interface DiffArgs {
  base?: string;
  head?: string;
  /** How `base` / `head` were spelt on the command line (default `either`, see {@link SideSpelling}). */
  baseIs?: SideSpelling;
  headIs?: SideSpelling;
  failOn?: FailOn;
  /** Risk codes `--ignore` named: still listed, marked `ignored`, never weighed (see {@link ignoreRisks}). */
  ignore?: readonly string[];
  /** Locate each agent in the head lockfile and manifest (`human.files`, for `--format sarif`). */
  locate?: boolean;
  /** The arguments git gives an external diff driver: path old-file old-hex old-mode new-file new-hex new-mode. */
  gitExternal?: string[];
  /** Take the head lockfile's digest too (the markdown view's marker carries it; a walk of the whole file, so only when asked). */
  headDigest?: boolean;
}

/** The 1-based line of each agent's key under `"agents"` in a lockfile ({@link memberLines}); none without one. */
function agentLines(text: string | undefined, names: readonly string[]): Record<string, number> {
  return text === undefined ? {} : memberLines(text, 'agents', names);
}

interface ReadSide {
  side: DiffSide;
  text?: string | undefined;
  /** The manifest's text beside the lockfile, once {@link manifestOfSide} read it. */
  manifestText?: string | undefined;
}

/**
 * How a side was written on the command line: `revision` (before a `--`), `file` (after it), or
 * `either` (a bare word, with no `--` on the line).
 */
export type SideSpelling = 'revision' | 'file' | 'either';

/** Whether `spec` is spelt as a path git would never read as a revision: `./x`, `../x`, absolute. */
function spelledAsPath(spec: string): boolean {
  return spec.startsWith('./') || spec.startsWith('../') || isAbsolute(spec) || (sep === '\\' && /^\.\.?\\/.test(spec));
}

/**
 * A side named on the command line: a file when spelt as one ({@link spelledAsPath}, or after
 * `--`); under CI (`ci`) a bare word is a revision of `lockfile`, one missing a usage error naming
 * `fetch-depth: 0`; elsewhere a bare word that is a path and no revision, a file; a bare word that
 * is no path, a revision of `lockfile`. A bare word that is both is refused, as git refuses it: a PR
 * could commit a copy of its own lockfile as `main` and review itself.
 * @throws UsageError ambiguous, no such file, not a revision
 */
async function readNamed(
  cwd: string,
  spec: string,
  given: SideSpelling,
  lockfile: string,
  ci: boolean,
  agentNames?: () => Promise<readonly string[]>,
): Promise<ReadSide> {
  // Under CI a bare word is a revision, never a file: a shallow checkout lacks the revision, and the
  // pull request could commit a file of that name (`origin/main`) to be its own base.
  const spelling: SideSpelling = ci && given === 'either' && !spelledAsPath(spec) ? 'revision' : given;
  const file = resolve(cwd, spec);
  const asFile = async (): Promise<ReadSide> => {
    let text: string | undefined;
    try {
      text = await readTextIfExists(file, 'lockfile-invalid');
    } catch {
      throw new UsageError(`${spec} is not a readable file`, { hint: 'name a lockfile' });
    }
    if (text === undefined)
      throw new UsageError(`${spec}: no such file`, { hint: 'name a lockfile, or a git revision before --' });
    return { side: { kind: 'file', label: spec, found: true }, text };
  };
  if (spelling === 'file' || (spelling === 'either' && spelledAsPath(spec))) return asFile();
  if (spelling === 'either' && existsSync(file)) {
    const root = await gitRoot(dirname(lockfile));
    if (root === undefined || !(await isCommit(root, spec))) return asFile();
    throw new UsageError(`"${spec}" is ambiguous: both a file and a git revision`, {
      hint: `write ./${spec} for the file, or the revision before -- (a2a diff ${spec} --)`,
    });
  }
  let read: Awaited<ReturnType<typeof readResolved>>;
  try {
    read = await readResolved(spec, lockfile, ci);
  } catch (error) {
    // `a2a diff <agent>` was `a2a outdated <agent>` before diff became the review of two lockfiles.
    if (error instanceof UsageError && agentNames && (await agentNames()).includes(spec)) {
      throw new UsageError(`"${spec}" is an agent, not a lockfile or a git revision: a2a diff compares two lockfiles`, {
        hint: `what a2a update would change for it: a2a outdated ${spec}`,
      });
    }
    throw error;
  }
  const { ref, commit } = read.revision;
  return {
    side: {
      kind: 'revision',
      label: spec,
      ...(ref !== undefined ? { ref } : {}),
      commit,
      found: read.text !== undefined,
    },
    text: read.text,
  };
}

/**
 * The manifest beside a side's lockfile, parsed: at a revision, `manifest` as committed there; for
 * a file side, the file named like `manifest` in the lockfile's folder; for the working tree,
 * `manifest` itself; none for git's external driver (git hands over the lockfile alone). Undefined
 * when there is none; one that is not a valid manifest is undefined with a warning (its credential
 * sources are then not compared).
 */
async function manifestOfSide(
  read: ReadSide,
  cwd: string,
  manifest: string,
  warnings: Warning[],
): Promise<Manifest | undefined> {
  const { kind, label } = read.side;
  let text: string | undefined;
  let source: string;
  try {
    if (kind === 'revision') {
      source = `${label}:${basename(manifest)}`;
      // At the commit the lockfile was read at (the revision already resolved, ambiguity refused).
      text = await readAtRevision(read.side.commit ?? label, manifest);
    } else if (kind === 'file') {
      source = manifestFileOf(read, cwd, manifest)!;
      text = await readTextIfExists(source, 'manifest-invalid');
    } else if (kind === 'worktree') {
      source = manifest;
      text = await readTextIfExists(manifest, 'manifest-invalid');
    } else return undefined;
    read.manifestText = text;
    if (text === undefined) return undefined;
    return parseManifest(text, source);
  } catch (error) {
    if (!(error instanceof A2aLockError)) throw error;
    warnings.push({
      code: 'manifest-not-compared',
      message: `the manifest of ${kind === 'worktree' ? 'the working tree' : label} was not read (${error.message}): credential sources not compared`,
    });
    return undefined;
  }
}

/** The manifest file {@link manifestOfSide} reads for a file or working-tree side (absolute), undefined for others. */
function manifestFileOf(read: ReadSide, cwd: string, manifest: string): string | undefined {
  if (read.side.kind === 'file') return resolve(dirname(resolve(cwd, read.side.label)), basename(manifest));
  return read.side.kind === 'worktree' ? resolve(manifest) : undefined;
}

/** A side's lockfile (undefined: none there) and, with `digest`, its digest (`lock/digest.ts`). */
function parseSide(read: ReadSide, digest = false): { lock: Lockfile | undefined; digest?: string } {
  if (read.text === undefined) return { lock: undefined };
  const source = read.side.kind === 'revision' ? `${read.side.label}:a2a.lock.json` : read.side.label;
  return digest ? parseLockfileWithDigest(read.text, source) : { lock: parseLockfile(read.text, source) };
}

/** Where the two sides of a diff come from: their text and what they are, the head's lockfile path and the manifest beside it. */
interface DiffSides {
  base: ReadSide;
  head: ReadSide;
  lockfile: string;
  manifest: string;
}

/**
 * The two sides of `a2a diff`: as git passes them to an external diff (`--git-external`), or as
 * named (a file, a revision, an agent; the head absent: the working tree's lockfile; the base
 * absent: the CI base, or HEAD).
 */
function readDiffSides(options: GlobalOptions, args: DiffArgs): Promise<DiffSides> {
  return args.gitExternal ? readGitExternalSides(options, args.gitExternal) : readNamedSides(options, args);
}

/** The sides as git passes them to an external diff (7 arguments). */
async function readGitExternalSides(options: GlobalOptions, g: readonly string[]): Promise<DiffSides> {
  if (g.length === 1)
    throw new UsageError(`${g[0]} is unmerged (git passes one argument for a conflicted path)`, {
      hint: 'resolve the lockfile with a2a lock, then diff again',
    });
  if (g.length !== 7)
    throw new UsageError(
      `--git-external takes the 7 arguments git passes an external diff (path old-file old-hex old-mode new-file new-hex new-mode); got ${g.length}`,
    );
  const [path, oldFile, , , newFile] = g as [string, string, string, string, string];
  const read = async (file: string, label: string): Promise<ReadSide> => {
    const text =
      file === '/dev/null' ? undefined : await readTextIfExists(resolve(options.cwd, file), 'lockfile-invalid');
    return { side: { kind: 'git-external', label, found: text !== undefined }, text };
  };
  const lockfile = resolve(options.cwd, path);
  return {
    lockfile,
    manifest: resolve(dirname(lockfile), 'a2a.json'),
    base: await read(oldFile, `a/${path}`),
    head: await read(newFile, `b/${path}`),
  };
}

/** The sides as named on the command line (see {@link readDiffSides}). */
async function readNamedSides(options: GlobalOptions, args: DiffArgs): Promise<DiffSides> {
  let base: ReadSide;
  let head: ReadSide;
  const lockfile = paths(options).lockfile;
  // For a side that is neither a file nor a revision: is it one of the manifest's agents?
  const manifestPath = paths(options).manifest;
  const ci = underCi(options.env);
  const agentNames = async (): Promise<readonly string[]> => {
    try {
      return Object.keys((await readManifest(manifestPath)).agents);
    } catch {
      return [];
    }
  };
  if (args.head !== undefined)
    head = await readNamed(options.cwd, args.head, args.headIs ?? 'either', lockfile, ci, agentNames);
  else
    head = {
      side: { kind: 'worktree', label: lockfile, found: false },
      text: await readTextIfExists(lockfile, 'lockfile-invalid'),
    };
  head.side.found = head.text !== undefined;
  if (args.base !== undefined)
    base = await readNamed(options.cwd, args.base, args.baseIs ?? 'either', lockfile, ci, agentNames);
  else {
    const root = await gitRoot(options.cwd);
    if (root === undefined)
      throw new UsageError(
        `${options.cwd} is not inside a git repository: name the base lockfile (a2a diff <base-file> [<head-file>])`,
      );
    const ci = await ciBase(root, options.env);
    if (ci.kind === 'unreadable') throw new UsageError(ci.reason, { hint: ci.hint });
    const rev = ci.kind === 'base' ? ci.rev : 'HEAD';
    const { text, revision } = await readResolved(rev, lockfile);
    const named =
      ci.kind === 'base'
        ? { ref: ci.ref, commit: revision.commit, source: ci.source }
        : { ...(revision.ref !== undefined ? { ref: revision.ref } : {}), commit: revision.commit };
    base = { side: { kind: 'revision', label: rev, ...named, found: text !== undefined }, text };
  }
  return { base, head, lockfile, manifest: manifestPath };
}

/**
 * The manifest of each side: which secret each credential reads is in a2a.json, not in the
 * lockfile. Not compared (`manifest-not-compared` warned) when both sides read one manifest file,
 * or when only one side has one (`gitExternal`: git's sides have none).
 */
async function readDiffManifests(
  base: ReadSide,
  head: ReadSide,
  cwd: string,
  manifest: string,
  gitExternal: boolean,
): Promise<{ manifests: DiffManifests; warnings: Warning[] }> {
  const warnings: Warning[] = [];
  // Two sides read from one manifest file (a copy of the base lockfile beside the working tree's
  // a2a.json) compare nothing: a changed credential source would pass as none. Nothing to compare,
  // so it is not parsed (docs/explanation/performance.md); its text is kept for --locate.
  const baseFile = manifestFileOf(base, cwd, manifest);
  if (baseFile !== undefined && baseFile === manifestFileOf(head, cwd, manifest)) {
    head.manifestText = await readTextIfExists(baseFile, 'manifest-invalid').catch((error: unknown) => {
      if (error instanceof A2aLockError) return undefined;
      throw error;
    });
    if (head.manifestText !== undefined)
      warnings.push({
        code: 'manifest-not-compared',
        message: `both sides read the manifest ${baseFile}: credential sources not compared (compare revisions, or put the base lockfile beside its own a2a.json)`,
      });
    return { manifests: {}, warnings };
  }
  const manifests: DiffManifests = {
    base: await manifestOfSide(base, cwd, manifest, warnings),
    head: await manifestOfSide(head, cwd, manifest, warnings),
  };
  if (
    !gitExternal &&
    base.text !== undefined &&
    head.text !== undefined &&
    (manifests.base === undefined) !== (manifests.head === undefined) &&
    !warnings.length
  ) {
    const missing = manifests.base === undefined ? base.side : head.side;
    warnings.push({
      code: 'manifest-not-compared',
      message: `no manifest beside the lockfile of ${missing.kind === 'worktree' ? 'the working tree' : missing.label}: credential sources not compared`,
    });
  }
  return { manifests, warnings };
}

/**
 * `a2a diff`: the review of head against base; exit 1 when `failOn` is set and a change at or above
 * it exists, else 0.
 * @throws UsageError a revision that is not a commit, outside git without a base path, a CI base that
 *   is not in this clone; InvalidInputError `lockfile-invalid` for a side that is not a valid lockfile
 */
export async function runDiff(options: GlobalOptions, args: DiffArgs): Promise<CommandResult<DiffData>> {
  const { base, head, lockfile, manifest } = await readDiffSides(options, args);
  const { manifests, warnings } = await readDiffManifests(
    base,
    head,
    options.cwd,
    manifest,
    args.gitExternal !== undefined,
  );
  const headLock = parseSide(head, args.headDigest);
  const diff = ignoreRisks(diffLockfiles(parseSide(base).lock, headLock.lock, manifests), new Set(args.ignore));
  const failed = args.failOn !== undefined && failsOn(diff, args.failOn as RiskLevel | 'any');
  const agents: Record<string, DiffAgentDocument> = {};
  for (const { name, ...rest } of diff.agents) agents[name] = rest;
  const files = args.locate
    ? await locateAgents(
        { file: lockfile, text: head.text },
        { file: manifest, text: head.manifestText },
        diff.agents.map((a) => a.name),
      )
    : undefined;
  return {
    exitCode: failed ? ExitCode.Drift : ExitCode.Ok,
    data: {
      ok: !failed,
      base: base.side,
      head: head.side,
      ...(args.failOn !== undefined ? { failOn: args.failOn } : {}),
      counts: diff.counts,
      ...(diff.policy ? { policy: diff.policy } : {}),
      agents,
      // Lines only for the agents an annotation can point at (high and medium risk).
      human: {
        names: diff.agents.map((a) => a.name),
        lockfile,
        // Located, the manifest's path from the repository root is already known (one git call, not two).
        manifest: files ? files.manifest.path : await repositoryPath(manifest),
        lines: agentLines(
          head.text,
          diff.agents.filter((a) => a.level === 'high' || a.level === 'medium').map((a) => a.name),
        ),
        ...(headLock.digest !== undefined ? { digest: headLock.digest } : {}),
        ...(files ? { files } : {}),
      },
    },
    warnings,
  };
}
