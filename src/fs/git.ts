/**
 * git, for the two sides of a review: a file as it was at a revision, and the revision a pull
 * request is compared against. git runs as a child process (`execFile`, no shell), each call
 * bounded in time and output; nothing here writes to the repository.
 */
import { execFile } from 'node:child_process';
import { dirname, relative, sep } from 'node:path';
import { UsageError } from '../errors.js';

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
      { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_OUTPUT_BYTES, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }, windowsHide: true },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : undefined) : 0;
        done({ ok: !error, stdout: String(stdout), stderr: String(stderr), code });
      },
    );
  });
}

/** The first line of git's complaint, for an error message. */
function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? 'git failed';
}

/**
 * The root of the git work tree holding `dir`, or undefined when `dir` is not in one (or git is
 * not installed).
 */
export async function gitRoot(dir: string): Promise<string | undefined> {
  const answer = await git(dir, ['rev-parse', '--show-toplevel']);
  return answer.ok ? answer.stdout.trim() : undefined;
}

/** Whether `rev` names a commit in the repository holding `dir`. */
export async function isCommit(dir: string, rev: string): Promise<boolean> {
  if (rev.startsWith('-')) return false;
  return (await git(dir, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).ok;
}

/**
 * The text of `file` (an absolute path inside the work tree holding it) as committed at `rev`
 * (`git show <rev>:<path from the repository root>`); undefined when the file does not exist at
 * that revision.
 * @throws UsageError `rev` is not a commit, or `file` is not inside a git work tree
 */
export async function readAtRevision(rev: string, file: string): Promise<string | undefined> {
  const dir = dirname(file);
  const root = await gitRoot(dir);
  if (root === undefined) throw new UsageError(`${file} is not inside a git repository, so revision "${rev}" cannot be read`, { hint: 'give the lockfile to compare as a file path' });
  if (!(await isCommit(root, rev))) throw new UsageError(`"${rev}" is not a git revision in ${root}`, { hint: 'name a branch, tag or commit (git log --oneline), or a lockfile path' });
  const inRepo = relative(root, file).split(sep).join('/');
  const answer = await git(root, ['show', `${rev}:${inRepo}`]);
  if (answer.ok) return answer.stdout;
  // "exists on disk, but not in <rev>" / "does not exist in <rev>": no lockfile on that side.
  if (/does not exist|exists on disk, but not in/.test(answer.stderr)) return undefined;
  throw new UsageError(`git show ${rev}:${inRepo}: ${firstLine(answer.stderr)}`);
}

/**
 * The revision a CI run is reviewing against, as its environment says:
 * - `none`: not a pull request (a push, a laptop);
 * - `base`: the pull request's base commit (`GITHUB_BASE_REF` → `git merge-base HEAD origin/<ref>`;
 *   GitLab's `CI_MERGE_REQUEST_DIFF_BASE_SHA`);
 * - `unreadable`: a pull request whose base is not in this clone (a shallow checkout), with why and
 *   how to fetch it.
 */
export type CiBase =
  | { kind: 'none' }
  | { kind: 'base'; rev: string; source: 'GITHUB_BASE_REF' | 'CI_MERGE_REQUEST_DIFF_BASE_SHA' }
  | { kind: 'unreadable'; source: 'GITHUB_BASE_REF' | 'CI_MERGE_REQUEST_DIFF_BASE_SHA'; reason: string; hint: string };

/** How to make the base readable on each CI. */
const FETCH_BASE_HINT = {
  GITHUB_BASE_REF: 'check out with the base branch: actions/checkout with `fetch-depth: 0`',
  CI_MERGE_REQUEST_DIFF_BASE_SHA: 'fetch the base: set GIT_DEPTH: 0 (or git fetch origin $CI_MERGE_REQUEST_TARGET_BRANCH_NAME)',
} as const;

/**
 * The pull request base of a CI run in `dir`, from `env` ({@link CiBase}). Only reads; never
 * fetches.
 */
export async function ciBase(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<CiBase> {
  const githubRef = env.GITHUB_BASE_REF;
  if (env.GITHUB_ACTIONS === 'true' && githubRef) {
    const source = 'GITHUB_BASE_REF';
    const answer = await git(dir, ['merge-base', 'HEAD', `origin/${githubRef}`]);
    if (answer.ok && answer.stdout.trim()) return { kind: 'base', rev: answer.stdout.trim(), source };
    return { kind: 'unreadable', source, reason: `the pull request's base (origin/${githubRef}) is not in this clone: ${firstLine(answer.stderr)}`, hint: FETCH_BASE_HINT[source] };
  }
  const gitlabSha = env.CI_MERGE_REQUEST_DIFF_BASE_SHA;
  if (gitlabSha) {
    const source = 'CI_MERGE_REQUEST_DIFF_BASE_SHA';
    if (/^[0-9a-f]{7,64}$/i.test(gitlabSha) && (await isCommit(dir, gitlabSha))) return { kind: 'base', rev: gitlabSha, source };
    return { kind: 'unreadable', source, reason: `the merge request's base (${gitlabSha.slice(0, 64)}) is not in this clone`, hint: FETCH_BASE_HINT[source] };
  }
  return { kind: 'none' };
}
