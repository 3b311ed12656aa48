#!/usr/bin/env node
// .github/a2a-update-pull-requests.mjs: what .github/workflows/a2a-update-pull-requests.yml runs. For each agent
// `a2a outdated --json` lists as outdated: `a2a update <agent>` on the checked-out branch, one commit holding only
// the lockfile, force-pushed to the branch a2a-lock/update-<agent>, and one pull request per agent (opened, or
// updated when it is already open) whose body is `a2a diff --format markdown` of that commit. No dependencies:
// Node 20, git, and the a2a-lock CLI. Programs are run without a shell; agent names are checked against the
// manifest's rule before they name a branch; card text reaches GitHub only as the review a2a diff escaped.
//
// Environment: GITHUB_TOKEN (pull-requests: write), GITHUB_REPOSITORY (owner/name), GITHUB_API_URL (default
// https://api.github.com); A2A_LOCK_MANIFEST (default a2a.json, its lockfile beside it); A2A_LOCK_CLI (default
// node_modules/.bin/a2a-lock; a .js file runs with this Node); A2A_LOCK_REMOTE (default origin).
// Exit 0: every moved agent has its pull request; 1: an agent could not be updated or proposed (the others were).
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';

/** The manifest's rule for an agent name (docs/reference/manifest.md): letters, digits, ".", "_", "-". */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const BODY_LIMIT = 65536; // GitHub's limit for a pull request body, in characters
const env = process.env;
const manifest = env.A2A_LOCK_MANIFEST || 'a2a.json';
const cli = env.A2A_LOCK_CLI || 'node_modules/.bin/a2a-lock';
const remote = env.A2A_LOCK_REMOTE || 'origin';
const api = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
const repository = env.GITHUB_REPOSITORY ?? '';

const log = (line) => process.stdout.write(`${line}\n`);
/** A workflow command's message: `%`, CR and LF escaped, so no text starts another command. */
const command = (kind, message) =>
  log(`::${kind}::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}`);

/** git, without a shell; its stdout trimmed. Throws on a non-zero exit. */
function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/**
 * git talking to the remote (ls-remote, fetch, push), with the token as actions/checkout would send it, but only
 * for this command and through the environment (never in an argument or in .git/config): the checkout keeps no
 * credential for npm ci or a2a-lock. Its stdout trimmed.
 */
function remoteGit(...args) {
  const server = env.GITHUB_SERVER_URL;
  const auth = server
    ? {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: `http.${server.replace(/\/+$/, '')}/.extraheader`,
        GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${env.GITHUB_TOKEN}`).toString('base64')}`,
      }
    : {};
  return execFileSync('git', args, {
    env: { ...env, ...auth, GIT_TERMINAL_PROMPT: '0' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** Whether git takes `branch` as a branch name. */
function validBranch(branch) {
  return spawnSync('git', ['check-ref-format', `refs/heads/${branch}`], { stdio: 'ignore' }).status === 0;
}

/** The commit of branch `ref` on the remote (fetched), or undefined when the remote has no such branch. */
function remoteCommit(ref) {
  if (!remoteGit('ls-remote', remote, ref)) return undefined;
  const local = `refs/a2a-lock/${ref.slice('refs/heads/'.length)}`;
  remoteGit('fetch', '--quiet', '--no-tags', remote, `+${ref}:${local}`);
  return git('rev-parse', local);
}

/** The a2a-lock CLI with `args`, without a shell: its exit code and stdout (stderr goes to the log). */
function a2a(...args) {
  const [file, first] = cli.endsWith('.js') || cli.endsWith('.mjs') ? [process.execPath, [cli]] : [cli, []];
  const { GITHUB_TOKEN: _token, ...without } = env; // a2a-lock never needs the token that pushes
  const r = spawnSync(file, [...first, ...args, `--manifest=${manifest}`], {
    env: without,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? 1, stdout: r.stdout };
}

/** One GitHub REST call; the parsed answer. Throws on a status other than 2xx. */
async function github(method, path, body) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${env.GITHUB_TOKEN}`,
      'x-github-api-version': '2022-11-28',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`GitHub ${method} ${path}: HTTP ${response.status}`);
  return response.status === 204 ? undefined : response.json();
}

/** Open (or update) the one pull request from `branch` into `base`. */
async function propose(branch, base, title, body) {
  const [owner] = repository.split('/');
  const query = new URLSearchParams({ state: 'open', head: `${owner}:${branch}`, base });
  const open = await github('GET', `/repos/${repository}/pulls?${query}`);
  const mine = Array.isArray(open) ? open.find((p) => p.head?.ref === branch && p.base?.ref === base) : undefined;
  if (mine) {
    await github('PATCH', `/repos/${repository}/pulls/${mine.number}`, { title, body });
    return `updated pull request #${mine.number}`;
  }
  const created = await github('POST', `/repos/${repository}/pulls`, { title, head: branch, base, body });
  return `opened pull request #${created.number}`;
}

/** A card version for a title: shown only when it is a plain version string. */
const plainVersion = (v) => (typeof v === 'string' && /^[0-9A-Za-z][0-9A-Za-z.+-]{0,39}$/.test(v) ? v : undefined);

async function main() {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository) || !env.GITHUB_TOKEN) {
    command('error', 'a2a-lock: GITHUB_REPOSITORY (owner/name) and GITHUB_TOKEN must be set');
    return 2;
  }
  const base = git('symbolic-ref', '--quiet', '--short', 'HEAD');
  const baseCommit = git('rev-parse', 'HEAD');
  const lockfile = resolve(dirname(manifest), 'a2a.lock.json'); // absolute: git takes it from any directory

  const outdated = a2a('outdated', '--json');
  let doc;
  try {
    doc = JSON.parse(outdated.stdout);
  } catch {
    command('error', `a2a-lock: a2a outdated (exit ${outdated.code}) printed no JSON document`);
    return 2;
  }
  if (outdated.code === 0) {
    log('a2a-lock: every agent is current');
    return 0;
  }
  let failed = outdated.code !== 1; // 2 or more: some agent could not be checked; the others go on
  const agents = doc && typeof doc.agents === 'object' && doc.agents !== null ? doc.agents : {};
  for (const [name, entry] of Object.entries(agents))
    if (entry?.status !== 'current' && entry?.status !== 'outdated') {
      // added, removed (a2a lock's), or not resolved: reported, never proposed.
      command(
        'warning',
        `a2a-lock: ${JSON.stringify(name.slice(0, 100))} is ${String(entry?.status).slice(0, 20)}: no pull request`,
      );
      failed = true;
    }
  const moved = Object.keys(agents).filter((name) => agents[name]?.status === 'outdated');
  for (const name of moved) {
    const branch = `a2a-lock/update-${name}`;
    // A name outside the manifest's rule never reaches git; one within it that git refuses as a branch name
    // (`a..b`, `x.lock`, a trailing `.`, too long) is skipped too.
    if (!AGENT_NAME.test(name) || name.length > 200 || !validBranch(branch)) {
      command('warning', `a2a-lock: ${JSON.stringify(name.slice(0, 100))} cannot name a branch: skipped`);
      failed = true;
      continue;
    }
    try {
      git('checkout', '--quiet', '--force', '--detach', baseCommit);
      const update = a2a('update', name);
      if (update.code !== 0) throw new Error(`a2a update ${name} exited ${update.code}`);
      if (git('status', '--porcelain', '--', lockfile) === '') {
        log(`a2a-lock: ${name}: a2a update changed nothing`);
        continue;
      }
      const review = a2a('diff', 'HEAD', '--format=markdown', '--no-summary');
      if (review.code !== 0) throw new Error(`a2a diff exited ${review.code}`);
      git('add', '--', lockfile);
      const version = plainVersion(agents[name].version?.new);
      const title = `a2a-lock: update ${name}${version ? ` to ${version}` : ''}`;
      git(
        '-c',
        'user.name=github-actions[bot]',
        '-c',
        'user.email=41898282+github-actions[bot]@users.noreply.github.com',
        'commit',
        '--quiet',
        '--no-verify',
        '-m',
        title,
        '--',
        lockfile,
      );
      // The branch is this script's own: rebuilt from the base each run, pushed only when its change differs.
      const pushed = remoteCommit(`refs/heads/${branch}`);
      const same =
        pushed !== undefined &&
        git('rev-parse', `${pushed}^{tree}`) === git('rev-parse', 'HEAD^{tree}') &&
        git('rev-list', '--parents', '-n', '1', pushed).split(' ').slice(1).join(' ') === baseCommit;
      if (!same) remoteGit('push', '--quiet', '--force', remote, `HEAD:refs/heads/${branch}`);
      const body =
        review.stdout.length > BODY_LIMIT
          ? `${review.stdout.slice(0, BODY_LIMIT - 200)}\n\n… the review is longer than a pull request body: run \`a2a diff ${base}\` on this branch.\n`
          : review.stdout;
      log(`a2a-lock: ${name}: ${await propose(branch, base, title, body)} from ${branch}`);
    } catch (error) {
      command('warning', `a2a-lock: ${name}: ${String(error?.message ?? error).slice(0, 500)}`);
      failed = true;
    }
  }
  git('checkout', '--quiet', '--force', base);
  return failed ? 1 : 0;
}

process.exitCode = await main();
