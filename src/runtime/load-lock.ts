/**
 * `loadLock`: read and check the lockfile (and the manifest beside it) for run-time use, and the
 * checks of its options against the lockfile.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { A2aLockError, InvalidInputError, UsageError } from '../errors.js';
import { isRecord } from '../json-path.js';
import { expectLockDigest, lockDigestOption } from '../lock/digest.js';
import type { LockfileTop } from '../lock/top.js';
import { loadChecksFor, loadedChecksNow } from './checks-loader.js';
import { Lock } from './lock.js';
import type { LoadLockOptions } from './types.js';

type Checked = import('./checks.js').CheckedAgent;
type CheckedManifest = import('./checks.js').CheckedManifest;

/**
 * Read and check `a2a.lock.json` for run-time use.
 *
 * Lazy (the default): `loadLock` reads the lockfile and the manifest beside it and checks the
 * lockfile's JSON (syntax, duplicate keys, merge-conflict markers, version, depth), its top level
 * (the `settings` and `agents` records, valid agent names) and that every agent has settings.
 * The first `lock.agent()` call parses the manifest (invalid: every agent is refused), and each
 * agent's first `lock.agent()` call checks that agent: its entry and settings against the
 * lockfile schema, that they match the manifest (card, settings, skills), its snapshot integrity,
 * and that its plans are what its snapshot negotiates. A failed check throws from `lock.agent()`,
 * on every call for that agent, before anything is sent; an invalid entry breaks only its own
 * agent. No schema, card or negotiation module is loaded until then (a cold start pays only for
 * the agents it uses).
 *
 * `eager: true` (at deploy time): all of the above for every agent here, the whole file against the
 * lockfile schema first, as the CLI reads it.
 *
 * `expectDigest`: the lockfile must have this digest (`a2a lock digest`), checked as soon as its
 * JSON is read, before anything else.
 *
 * @throws InvalidInputError `lockfile-invalid` (missing, invalid; with `eager`, any invalid entry or tampered snapshot);
 *   DigestMismatchError `digest-mismatch` (`expectDigest` given, another lockfile);
 *   UsageError (`expectDigest` not spelt as a digest, `onDrift` neither `'report'` nor `'refuse'`);
 *   A2aLockError `manifest-not-found` (an explicit `manifest` that does not exist);
 *   with `eager`: OutOfDateError `lockfile-out-of-date` (manifest or plans out of step: run `a2a lock`),
 *   InvalidInputError `manifest-invalid`
 */
export async function loadLock(options: LoadLockOptions = {}): Promise<Lock> {
  if (options.onDrift !== undefined && options.onDrift !== 'report' && options.onDrift !== 'refuse')
    throw new UsageError(
      `loadLock: onDrift is ${JSON.stringify(String(options.onDrift).slice(0, 40))}; use 'report' (the default) or 'refuse'`,
    );
  const expected =
    options.expectDigest === undefined ? undefined : lockDigestOption('loadLock: expectDigest', options.expectDigest);
  const [{ readTextIfExists }, { checkLockfileTop, parseLockfileJson }] = await Promise.all([
    import('../fs/atomic-write.js'),
    import('../lock/top.js'),
  ]);
  await loadChecksFor(options.eager);
  const source = resolve(options.lockfile ?? 'a2a.lock.json');
  const manifestPath = resolve(options.manifest ?? join(dirname(source), 'a2a.json'));
  // Both files are read at once; the lockfile's own errors still come first (the manifest's
  // failure, if any, is thrown where it is awaited below).
  const manifestRead =
    options.manifest !== undefined || existsSync(manifestPath)
      ? readTextIfExists(manifestPath, 'manifest-invalid')
      : undefined;
  manifestRead?.catch(() => {
    /* thrown where it is awaited below */
  });
  const text = await readTextIfExists(source, 'lockfile-invalid');
  if (text === undefined)
    throw new InvalidInputError('lockfile-invalid', source, 'no lockfile here', { hint: 'run a2a lock' });
  const value = parseLockfileJson(text, source);
  // Not the lockfile that was reviewed: refused before anything else is read or checked.
  if (expected !== undefined) expectLockDigest(value, expected, source);
  // Eager: the whole file against the lockfile schema, as the CLI reads it (the same first error).
  const lock: LockfileTop = options.eager
    ? loadedChecksNow().validateLockfile(value, source)
    : checkLockfileTop(value, source);
  checkCredentialsOption(options.credentials, lock, source);
  checkOriginAuthOption(options.originAuth, lock, source);
  for (const name of Object.keys(lock.agents)) {
    if (!Object.hasOwn(lock.settings, name))
      throw new InvalidInputError('lockfile-invalid', source, `agent "${name}" has no settings`, {
        path: `$.settings["${name}"]`,
      });
  }
  let manifest: { text: string; path: string; checked?: CheckedManifest } | undefined;
  if (manifestRead) {
    const manifestText = await manifestRead;
    if (manifestText === undefined) {
      throw new A2aLockError('manifest-not-found', `${manifestPath}: not found`, {
        hint: 'check the --manifest path; a2a init writes a new manifest',
        data: { source: manifestPath },
      });
    }
    manifest = { text: manifestText, path: manifestPath };
  }
  const checked = new Map<string, Checked>();
  if (options.eager) {
    if (manifest) manifest.checked = loadedChecksNow().checkManifestNow(manifest.text, manifestPath, lock, source);
    for (const name of Object.keys(lock.agents)) {
      const agent = loadedChecksNow().checkAgent(lock, source, name, manifest?.checked);
      if ('error' in agent) throw agent.error;
      checked.set(name, agent);
    }
  }
  return new Lock(lock, source, manifest, options, checked);
}

/** The form of `credentials` the messages below show. */
const PER_AGENT_FORM =
  "credentials: { 'research-agent': { bearer: () => token } } (per locked agent, then scheme), or credentials: ({ agent, skill, scheme, scopes, origin }) => token";

/**
 * Check `loadLock`'s `credentials` option against the locked agents. The rule: a function is the
 * one provider of every credential; otherwise every key must be a locked agent name and every value
 * an object whose every value is a function (scheme → provider). A function directly under
 * `credentials` is the scheme-only form (a2a-lock 0.1: `{ bearer: provider }`), which applied one
 * secret to every agent: refused, naming the per-agent form, even under a key that is an agent's name.
 * @throws UsageError for anything else, before anything is sent
 */
function checkCredentialsOption(credentials: LoadLockOptions['credentials'], lock: LockfileTop, source: string): void {
  if (credentials === undefined || typeof credentials === 'function') return;
  const refuse = (message: string) => new UsageError(`loadLock: ${message}; use ${PER_AGENT_FORM}`);
  if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials))
    throw refuse('credentials is neither an object nor a function');
  for (const [key, value] of Object.entries(credentials)) {
    const shown = JSON.stringify(key.slice(0, 60));
    if (typeof value === 'function')
      throw refuse(
        `credentials[${shown}] is a function: the scheme-only form { [scheme]: provider } is not supported (it gave every agent the same secret)`,
      );
    if (!Object.hasOwn(lock.agents, key))
      throw refuse(
        `credentials names ${shown}, which is not an agent of ${source} (locked: ${Object.keys(lock.agents).join(', ') || 'none'})`,
      );
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw refuse(`credentials[${shown}] is not an object of scheme → provider`);
    for (const [scheme, provider] of Object.entries(value)) {
      if (typeof provider !== 'function')
        throw refuse(`credentials[${shown}][${JSON.stringify(scheme.slice(0, 60))}] is not a function`);
    }
  }
}

/**
 * Check `loadLock`'s `originAuth` option against the lockfile: every key must be an origin some
 * locked agent records a platform credential for (its entry's `originAuth`), and every value a
 * function. A misspelt origin (`https://gatewy.example`, a trailing `/`) would never be asked.
 * @throws UsageError naming the key and the origins the lockfile records, before anything is sent
 */
function checkOriginAuthOption(originAuth: LoadLockOptions['originAuth'], lock: LockfileTop, source: string): void {
  if (originAuth === undefined) return;
  if (typeof originAuth !== 'object' || originAuth === null || Array.isArray(originAuth))
    throw new UsageError('loadLock: originAuth is not an object of origin → provider');
  // Entries are checked on first use (lazy): only their originAuth keys are read here.
  const recorded = new Set<string>();
  for (const entry of Object.values(lock.agents))
    if (isRecord(entry) && isRecord(entry.originAuth))
      for (const origin of Object.keys(entry.originAuth)) recorded.add(origin);
  for (const [origin, provider] of Object.entries(originAuth)) {
    const shown = JSON.stringify(origin.slice(0, 100));
    if (!recorded.has(origin))
      throw new UsageError(
        `loadLock: originAuth names ${shown}, an origin no agent of ${source} records a platform credential for (recorded: ${[...recorded].sort().join(', ') || 'none'})`,
        {
          hint: "originAuth's keys are origins as a2a.json's originAuth spells them: https://host[:port], no path or trailing /",
        },
      );
    if (typeof provider !== 'function') throw new UsageError(`loadLock: originAuth[${shown}] is not a function`);
  }
}
