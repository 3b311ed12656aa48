/**
 * git, for the two sides of a review: a file as it was at a revision, and the revision a pull
 * request is compared against. git runs as a child process (`execFile`, no shell), each call
 * bounded in time and output; nothing here writes to the repository.
 */
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { type DefaultBranchFacts, defaultBranchGate } from '../lock/ci-gate.js';

/** Longest a git call may take, ms. */
const GIT_TIMEOUT_MS = 10_000;
/** Most bytes a git call may print (a lockfile of ~20,000 agents). */
const GIT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** What a git call answered. `code` is git's exit status (undefined when git could not be started). */
interface GitAnswer {
  ok: boolean;
  stdout: string;
  stderr: string;
  code: number | undefined;
}

function git(cwd: string, args: readonly string[]): Promise<GitAnswer> {
  return new Promise((done) => {
    execFile(
      'git',
      args,
      {
        cwd,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: GIT_MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const code = error
          ? typeof (error as { code?: unknown }).code === 'number'
            ? (error as { code: number }).code
            : undefined
          : 0;
        done({ ok: !error, stdout: String(stdout), stderr: String(stderr), code });
      },
    );
  });
}

/** The first line of git's complaint, for an error message. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? 'git failed'
  );
}

/**
 * The root of the git work tree holding `dir`, or undefined when `dir` is not in one (or git is
 * not installed).
 */
export async function gitRoot(dir: string): Promise<string | undefined> {
  // Without a `.git` above `dir` (or GIT_DIR) git finds no work tree: it is not started (docs/explanation/performance.md).
  if (process.env.GIT_DIR === undefined && !(await gitEntryAbove(dir))) return undefined;
  const answer = await git(dir, ['rev-parse', '--show-toplevel']);
  return answer.ok ? answer.stdout.trim() : undefined;
}

/** Whether `dir` or a directory above it holds a `.git` entry (a directory, or a worktree's or submodule's file). */
async function gitEntryAbove(dir: string): Promise<boolean> {
  for (let at = resolve(dir); ; at = dirname(at)) {
    try {
      await stat(join(at, '.git'));
      return true;
    } catch {
      // none here: one level up
    }
    if (dirname(at) === at) return false;
  }
}

/**
 * Whether `env` is a CI run: `CI` set (not empty, `false` or `0`; GitHub Actions and GitLab CI set
 * `CI=true`), `GITHUB_ACTIONS=true`, or `GITLAB_CI` set. Under CI a bare word naming a side of
 * `a2a diff` or `verify --base` is always a revision: a shallow checkout lacks most revisions, and
 * a pull request could commit a file of that name to be its own base.
 */
export function underCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env.CI;
  return (
    (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') ||
    env.GITHUB_ACTIONS === 'true' ||
    (env.GITLAB_CI !== undefined && env.GITLAB_CI !== '')
  );
}

/** What to do about a revision a CI checkout lacks. */
const CI_MISSING_REVISION_HINT =
  'fetch it: actions/checkout with `fetch-depth: 0` (GitLab: GIT_DEPTH: 0); a lockfile file is spelt ./path, an absolute path, or after --';

/** Whether `rev` names a commit in the repository holding `dir`. */
export async function isCommit(dir: string, rev: string): Promise<boolean> {
  if (rev.startsWith('-')) return false;
  return (await git(dir, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).ok;
}

/**
 * A revision as git resolved it: `ref`, the fully qualified ref it named (`refs/heads/main`;
 * undefined for a commit id or an expression such as `HEAD~1`), and the `commit` (40 or 64 hex).
 */
export interface ResolvedRevision {
  ref: string | undefined;
  commit: string;
}

/** The full refs `name` could mean by git's rules (tags, branches, remote-tracking branches) that exist, in the order git tries them. */
async function refsNamed(dir: string, name: string): Promise<string[]> {
  const candidates = [
    name,
    `refs/${name}`,
    `refs/tags/${name}`,
    `refs/heads/${name}`,
    `refs/remotes/${name}`,
    `refs/remotes/${name}/HEAD`,
  ];
  const answer = await git(dir, [
    'for-each-ref',
    '--format=%(refname)',
    ...candidates.filter((c) => c.startsWith('refs/')),
  ]);
  // In the order git's rules try them (the first one found is the one git would take).
  return candidates.filter((c) => answer.stdout.split('\n').includes(c));
}

/**
 * Resolve `rev` to a commit in the repository holding `dir`, refusing a name that git's rules
 * could read two ways: a tag and a branch of the same name (`origin/main` as the tag
 * `refs/tags/origin/main` and the remote-tracking branch `refs/remotes/origin/main`), where git
 * would silently take the tag; and a tag `main` beside a remote-tracking branch `origin/main` with
 * no local `main` (a CI checkout), which git reads as the tag without a word.
 * `ci` ({@link underCi}): a revision that is not there is named as one a CI checkout lacks (the hint
 * names `fetch-depth: 0`).
 * @throws UsageError `rev` is not a commit, or it is ambiguous ("ambiguous: both a tag and a branch")
 */
export async function resolveRevision(dir: string, rev: string, ci = false): Promise<ResolvedRevision> {
  const notRevision = () =>
    ci
      ? new UsageError(`"${rev}" is not a git revision in ${dir} (under CI a bare word is always a revision)`, {
          hint: CI_MISSING_REVISION_HINT,
        })
      : new UsageError(`"${rev}" is not a git revision in ${dir}`, {
          hint: 'name a branch, tag or commit (git log --oneline), or a lockfile path',
        });
  if (rev === '' || rev.startsWith('-')) throw notRevision();
  // Without --quiet git warns of an ambiguous refname on stderr (forced on: a user's config may silence it).
  const answer = await git(dir, ['-c', 'core.warnAmbiguousRefs=true', 'rev-parse', '--verify', `${rev}^{commit}`]);
  if (!answer.ok) throw notRevision();
  const ambiguous = /^warning: refname '(.*)' is ambiguous\.$/m.exec(answer.stderr);
  if (ambiguous) {
    const refs = await refsNamed(dir, ambiguous[1]!);
    const tag = refs.some((r) => r.startsWith('refs/tags/'));
    const branch = refs.some((r) => r.startsWith('refs/heads/') || r.startsWith('refs/remotes/'));
    const what = tag && branch ? 'both a tag and a branch' : 'it names several refs';
    const full = refs.find((r) => !r.startsWith('refs/tags/')) ?? refs[0];
    throw new UsageError(`"${rev}" is ambiguous: ${what} (${refs.join(', ') || ambiguous[1]})`, {
      hint: `name the one meant in full${full ? ` (such as ${full})` : ''}, or its commit`,
    });
  }
  const commit = answer.stdout.trim();
  const symbolic = await git(dir, ['rev-parse', '--symbolic-full-name', rev]);
  const ref = symbolic.ok ? symbolic.stdout.trim().split('\n')[0] : undefined;
  // A tag named like a branch git does not see under that short name: in a CI checkout there is no
  // local `main`, so `main` reads the tag `main` (a pull request's own commit) and never
  // `refs/remotes/origin/main`.
  const cut = rev.search(/[~^]|@\{/);
  const named =
    cut > 0
      ? (await git(dir, ['rev-parse', '--symbolic-full-name', rev.slice(0, cut)])).stdout.trim().split('\n')[0]
      : ref;
  if (named?.startsWith('refs/tags/')) {
    const name = named.slice('refs/tags/'.length);
    const branches = (
      await git(dir, ['for-each-ref', '--format=%(refname)', `refs/heads/${name}`, `refs/remotes/*/${name}`])
    ).stdout
      .split('\n')
      .filter(Boolean);
    if (branches.length) {
      throw new UsageError(`"${rev}" is ambiguous: both a tag and a branch (${[named, ...branches].join(', ')})`, {
        hint: `name the one meant in full (such as ${branches[0]}), or its commit`,
      });
    }
  }
  return { ref: ref?.startsWith('refs/') ? ref : undefined, commit };
}

/**
 * The merge-base of HEAD and `commit` in the repository holding `dir`: the newest commit both
 * histories hold, so always an ancestor of HEAD. Undefined when there is none (unrelated
 * histories, a shallow clone that stops short of it, no HEAD).
 */
export async function mergeBase(dir: string, commit: string): Promise<string | undefined> {
  const answer = await git(dir, ['merge-base', 'HEAD', commit]);
  const base = answer.stdout.trim();
  return answer.ok && base ? base : undefined;
}

/**
 * The text of `file` (an absolute path inside the work tree holding it) as committed at `rev`
 * (`git show <commit>:<path from the repository root>`, the commit resolved by
 * {@link resolveRevision}); undefined when the file does not exist at that revision.
 * @throws UsageError `rev` is not a commit or is ambiguous, or `file` is not inside a git work tree
 */
export async function readAtRevision(rev: string, file: string): Promise<string | undefined> {
  return (await readResolved(rev, file)).text;
}

/**
 * {@link readAtRevision}, with the revision as resolved (its ref and commit); `ci` as {@link resolveRevision}'s.
 * @throws as {@link readAtRevision}
 */
export async function readResolved(
  rev: string,
  file: string,
  ci = false,
): Promise<{ text: string | undefined; revision: ResolvedRevision }> {
  const dir = dirname(file);
  const root = await gitRoot(dir);
  if (root === undefined)
    throw new UsageError(`${file} is not inside a git repository, so revision "${rev}" cannot be read`, {
      hint: 'give the lockfile to compare as a file path',
    });
  const revision = await resolveRevision(root, rev, ci);
  const inRepo = relative(root, file).split(sep).join('/');
  const answer = await git(root, ['show', `${revision.commit}:${inRepo}`]);
  if (answer.ok) return { text: answer.stdout, revision };
  // "exists on disk, but not in <rev>" / "does not exist in <rev>": no lockfile on that side.
  if (/does not exist|exists on disk, but not in/.test(answer.stderr)) return { text: undefined, revision };
  throw new UsageError(`git show ${rev}:${inRepo}: ${firstLine(answer.stderr)}`);
}

/** The CI variable that made a run a review and named its base. */
export type CiSource = 'GITHUB_BASE_REF' | 'CI_MERGE_REQUEST_DIFF_BASE_SHA' | 'GITHUB_REF' | 'CI_COMMIT_BRANCH';

/**
 * The revision a CI run is reviewing against, as its environment says:
 * - `none`: not a review: a run (GitHub: any `GITHUB_EVENT_NAME`; GitLab: any `CI_PIPELINE_SOURCE`)
 *   whose HEAD is the default branch's tip or an ancestor of `refs/remotes/origin/<default>`, or a laptop;
 * - `base`: the commit its credentials are gated by, always an ancestor of HEAD: a pull request's
 *   base (GitHub `GITHUB_BASE_REF` → `git merge-base HEAD refs/remotes/origin/<ref>`, the ref fully
 *   qualified so no tag can stand in for it; GitLab's `CI_MERGE_REQUEST_DIFF_BASE_SHA`, which must
 *   be an ancestor of HEAD), or for any other run whose HEAD is not on the default branch (a push
 *   of another branch; a `workflow_run`, `issue_comment`, `repository_dispatch` or
 *   `workflow_dispatch` run that carries the default branch's ref but checked out a pull request's
 *   head) the merge-base of HEAD and the default branch ({@link defaultBranchGate}). `ref` names
 *   what it was resolved through, `run` what the run is (for messages);
 * - `unreadable`: a review whose base cannot be read here (not in a shallow clone, not an
 *   ancestor of HEAD, the default branch unknown), with why and how to fetch it.
 */
export type CiBase =
  | { kind: 'none' }
  | { kind: 'base'; rev: string; ref: string; source: CiSource; run: string }
  | { kind: 'unreadable'; source: CiSource; ref?: string; reason: string; hint: string; run: string };

/** How to make the base readable on each CI. */
const FETCH_BASE_HINT: Record<CiSource, string> = {
  GITHUB_BASE_REF: 'check out with the base branch: actions/checkout with `fetch-depth: 0`',
  CI_MERGE_REQUEST_DIFF_BASE_SHA:
    'fetch the base: set GIT_DEPTH: 0 (or git fetch origin $CI_MERGE_REQUEST_TARGET_BRANCH_NAME)',
  GITHUB_REF: 'check out with the default branch: actions/checkout with `fetch-depth: 0`',
  CI_COMMIT_BRANCH:
    'fetch the default branch: set GIT_DEPTH: 0 and git fetch origin "+refs/heads/$CI_DEFAULT_BRANCH:refs/remotes/origin/$CI_DEFAULT_BRANCH"',
};

/** Most bytes of a GitHub event payload read for its default branch. */
const EVENT_MAX_BYTES = 64 * 1024 * 1024;

/** `repository.default_branch` of the GitHub event payload at `path`, or undefined when it cannot be read. */
async function githubDefaultBranch(path: string | undefined): Promise<string | undefined> {
  if (!path) return undefined;
  try {
    const file = await stat(path);
    if (!file.isFile() || file.size > EVENT_MAX_BYTES) return undefined;
    const payload = JSON.parse(await readFile(path, 'utf8')) as { repository?: { default_branch?: unknown } } | null;
    const branch = payload?.repository?.default_branch;
    return typeof branch === 'string' && branch !== '' ? branch : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The merge-base of HEAD and the remote-tracking branch `origin/<branch>`, read through its fully
 * qualified name (`refs/remotes/origin/<branch>`: git's short-name rules would take a tag
 * `origin/<branch>` first).
 */
async function baseOfRemoteBranch(
  dir: string,
  branch: string,
  source: CiSource,
  run: string,
  what: string,
): Promise<CiBase> {
  const ref = `refs/remotes/origin/${branch}`;
  const unreadable = (why: string): CiBase => ({
    kind: 'unreadable',
    source,
    ref,
    reason: `${what} (${ref}) ${why}`,
    hint: FETCH_BASE_HINT[source],
    run,
  });
  const tip = await git(dir, ['show-ref', '--verify', '--hash', ref]);
  if (!tip.ok || !tip.stdout.trim()) return unreadable(`is not in this clone: ${firstLine(tip.stderr)}`);
  const rev = await mergeBase(dir, tip.stdout.trim().split('\n')[0]!);
  if (rev === undefined) return unreadable('has no common ancestor with HEAD in this clone');
  return { kind: 'base', rev, ref, source, run };
}

/**
 * What git says of HEAD and `refs/remotes/origin/<branch>` in the clone holding `dir`
 * ({@link DefaultBranchFacts}: its tip, HEAD, whether HEAD is on it, their merge-base).
 */
async function defaultBranchFacts(dir: string, branch: string): Promise<DefaultBranchFacts> {
  const ref = `refs/remotes/origin/${branch}`;
  const [tipAnswer, headAnswer] = await Promise.all([
    git(dir, ['show-ref', '--verify', '--hash', ref]),
    git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']),
  ]);
  const tip = tipAnswer.ok ? tipAnswer.stdout.trim().split('\n')[0] || undefined : undefined;
  const head = headAnswer.ok ? headAnswer.stdout.trim() || undefined : undefined;
  if (tip === undefined || head === undefined) return { ref, tip, head, headOnDefault: false, mergeBase: undefined };
  // Exit 0: an ancestor (or the tip itself); 1: not; anything else (a shallow clone short of it): not known, so not.
  const [onDefault, base] = await Promise.all([
    git(dir, ['merge-base', '--is-ancestor', head, tip]),
    mergeBase(dir, tip),
  ]);
  return { ref, tip, head, headOnDefault: onDefault.code === 0, mergeBase: base };
}

/**
 * The gate of a run that is not a pull request's ({@link defaultBranchGate}): none when HEAD is on
 * the default branch `branch`, else the merge-base of HEAD and `refs/remotes/origin/<branch>`, or
 * unreadable. `run` says what the run is when it is gated.
 */
async function gateOfRun(dir: string, branch: string, source: CiSource, run: string): Promise<CiBase> {
  const facts = await defaultBranchFacts(dir, branch);
  const gate = defaultBranchGate(facts);
  if (gate.kind === 'ungated') return { kind: 'none' };
  if (gate.kind === 'gated') return { kind: 'base', rev: gate.rev, ref: facts.ref, source, run };
  return {
    kind: 'unreadable',
    source,
    ref: facts.ref,
    reason: `the default branch (${facts.ref}) ${gate.why}`,
    hint: FETCH_BASE_HINT[source],
    run,
  };
}

/**
 * The review base of a CI run in `dir`, from `env` ({@link CiBase}). Only reads; never fetches.
 * Pull requests first (GitHub, then GitLab), then any other run: gated unless HEAD is on the default branch.
 */
export async function ciBase(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<CiBase> {
  const github = env.GITHUB_ACTIONS === 'true';
  const githubRef = env.GITHUB_BASE_REF;
  if (github && githubRef)
    return baseOfRemoteBranch(dir, githubRef, 'GITHUB_BASE_REF', 'a pull request run', "the pull request's base");
  const gitlabSha = env.CI_MERGE_REQUEST_DIFF_BASE_SHA;
  if (gitlabSha) {
    const source = 'CI_MERGE_REQUEST_DIFF_BASE_SHA';
    const run = 'a merge request run';
    const shown = gitlabSha.slice(0, 64);
    const unreadable = (why: string): CiBase => ({
      kind: 'unreadable',
      source,
      reason: `the merge request's base (${shown}) ${why}`,
      hint: FETCH_BASE_HINT[source],
      run,
    });
    // A full commit id only: a short one could also be read as a ref name.
    if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(gitlabSha) || !(await isCommit(dir, gitlabSha)))
      return unreadable('is not in this clone');
    const rev = gitlabSha.toLowerCase();
    if ((await mergeBase(dir, rev)) !== rev) return unreadable('is not an ancestor of HEAD');
    return { kind: 'base', rev, ref: rev, source, run };
  }
  // Any event can run code other than the default branch's with the job's secrets: a push of a
  // branch, `merge_group`, `release` of a tag, and, on the default branch's own ref,
  // `workflow_run`, `issue_comment`, `repository_dispatch` or `workflow_dispatch` runs that check
  // out a pull request's head. Whether the run is gated follows what is checked out (HEAD).
  const event = env.GITHUB_EVENT_NAME;
  if (github && event) {
    const pushed = env.GITHUB_REF ?? '';
    // A schedule runs on the default branch: its ref names that branch when the payload does not.
    const defaultBranch =
      (await githubDefaultBranch(env.GITHUB_EVENT_PATH)) ??
      (event === 'schedule' && pushed.startsWith('refs/heads/') ? pushed.slice('refs/heads/'.length) : undefined);
    const what =
      event === 'push' ? `a push of ${pushed || 'an unnamed ref'}` : `a ${event} run on ${pushed || 'an unnamed ref'}`;
    if (defaultBranch === undefined) {
      const reason = `the default branch this ${what.slice(2)} is compared against is not known (no repository.default_branch in the event payload at GITHUB_EVENT_PATH)`;
      return {
        kind: 'unreadable',
        source: 'GITHUB_REF',
        reason,
        hint: 'run under GitHub Actions, which writes the event payload',
        run: `${what}, not the default branch`,
      };
    }
    const run =
      pushed === `refs/heads/${defaultBranch}`
        ? `${what} whose HEAD is not on the default branch ${defaultBranch}`
        : `${what}, not the default branch ${defaultBranch}`;
    return gateOfRun(dir, defaultBranch, 'GITHUB_REF', run);
  }
  // GitLab: a pipeline of any source (a push, `web` or `api` run on a branch, a schedule or trigger
  // for another branch) runs that branch's code; the merge requests were handled above.
  const source = env.CI_PIPELINE_SOURCE;
  if (source) {
    const pushed = env.CI_COMMIT_BRANCH
      ? `branch ${env.CI_COMMIT_BRANCH}`
      : env.CI_COMMIT_TAG
        ? `tag ${env.CI_COMMIT_TAG}`
        : `ref ${env.CI_COMMIT_REF_NAME ?? '(unnamed)'}`;
    const defaultBranch = env.CI_DEFAULT_BRANCH;
    const kind = source === 'push' ? 'a push' : `a ${source} pipeline`;
    const run =
      defaultBranch && env.CI_COMMIT_BRANCH === defaultBranch
        ? `${kind} of ${pushed} whose HEAD is not on the default branch ${defaultBranch}`
        : `${kind} of ${pushed}, not the default branch${defaultBranch ? ` ${defaultBranch}` : ''}`;
    if (!defaultBranch)
      return {
        kind: 'unreadable',
        source: 'CI_COMMIT_BRANCH',
        reason: `the default branch this push of ${pushed} is compared against is not known (CI_DEFAULT_BRANCH unset)`,
        hint: 'run under GitLab CI, which sets CI_DEFAULT_BRANCH',
        run,
      };
    return gateOfRun(dir, defaultBranch, 'CI_COMMIT_BRANCH', run);
  }
  return { kind: 'none' };
}
