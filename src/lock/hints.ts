/**
 * The one place that words the next step for a refusal: the command (or the docs page) that
 * resolves it. `lock`, `update`, `outdated` and `verify` attach the same hint to the same refusal
 * of a locked agent ({@link refusalHint} with no `add`); `add` names itself again with the flag to
 * add ({@link AddRetry}). Pure: values in, a line out.
 */
import type { Refusal } from '../negotiate/types.js';
import type { PlanDrift, SkillRefusal, SyncFailure } from './report.js';

/**
 * The docs pages a hint points to, as paths in the repository (test/e2e/hints.test.ts holds each
 * to an existing page and anchor).
 * @internal
 */
export const HINT_DOCS = {
  rebaseInterfaces: 'docs/guide/hosted-agents.md#a-card-that-advertises-its-bind-address-rebaseinterfaces',
  manifestKeys: 'docs/reference/manifest.md#keys',
  negotiation: 'docs/explanation/negotiation.md#the-steps',
} as const;

/** How to run `a2a add` again: the command line as given (its words, quoted for a shell where needed). */
export interface AddRetry {
  /** `a2a add <name> <card> ...` as it was run, without its `--range`. */
  command: string;
  /** Its `--range <range>`, when it had one (a `version-out-of-range` retry gives another). */
  range?: string;
  /** The card location, to list its skills (`a2a card <card>`). */
  card: string;
}

/** A value quoted for a POSIX shell when it holds anything but plain word characters. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `--<name> <value>` as a shell word pair; `--<name>=<value>` when the value starts with `-` (else read as a flag). */
export function shellFlag(name: string, value: string): string {
  return value.startsWith('-') ? `--${name}=${shellWord(value)}` : `--${name} ${shellWord(value)}`;
}

/** `--credential <scheme>=<ENV>` for each scheme, with what `<ENV>` is. */
function credentialFlags(schemes: readonly string[]): string {
  const flags = (schemes.length ? schemes : ['<scheme>']).map((s) => `--credential ${shellWord(s)}=<ENV>`).join(' ');
  return `${flags} (<ENV>: the environment variable that holds the secret; an oauth2 client: <scheme>=oauth:<ID_ENV>:<SECRET_ENV>)`;
}

/** A `plain-http` refusal for a bind address (`0.0.0.0`, `::`), which `rebaseInterfaces` resolves (negotiate.ts words it so). */
function isBindAddress(refusal: Refusal): boolean {
  return refusal.code === 'plain-http' && refusal.message.includes('"rebaseInterfaces"');
}

/**
 * The next step for `skill` of `agent`, refused with `refusal`: the command that resolves it, or
 * the docs page that says how. `missing`: for `missing-credential`, the schemes to hold. `add`:
 * the refusal came from `a2a add` (nothing was written), so the step is that command again.
 * @internal
 */
export function refusalHint(
  agent: string,
  skill: string,
  refusal: Refusal,
  missing: readonly string[] | undefined,
  add?: AddRetry,
): string {
  const again = (flag: string) =>
    add
      ? `${add.command}${add.range !== undefined && !flag.startsWith('--range') ? ` ${add.range}` : ''} ${flag}`
      : `a2a update ${shellWord(agent)} ${flag}`;
  switch (refusal.code) {
    case 'skill-not-found':
      return add
        ? `a2a card ${shellWord(add.card)} lists the card's skills; run a2a add without ${shellFlag('skill', skill)}`
        : `remove the skill from a2a.json: a2a remove ${shellWord(agent)} ${shellFlag('skill', skill)}`;
    case 'missing-credential':
      return again(credentialFlags(missing ?? []));
    case 'plain-http':
      return isBindAddress(refusal)
        ? `${again('--rebase-interfaces')} (${HINT_DOCS.rebaseInterfaces})`
        : `${again('--allow-http')} (a credential is never sent over plain http; ${HINT_DOCS.manifestKeys})`;
    case 'version-out-of-range':
      return `${again('--range <range>')} (<range>: a semver range the card's version satisfies; ${HINT_DOCS.manifestKeys})`;
    default:
      // The client profile decides: what the client implements is the user's to change.
      return `the client profile in a2a.json ("profile", or the agent's own) does not meet the card: ${HINT_DOCS.negotiation}`;
  }
}

/** `refusals` of `agent` with their hints ({@link refusalHint}). */
function hintRefusals(agent: string, refusals: readonly SkillRefusal[], add?: AddRetry): SkillRefusal[] {
  return refusals.map((r) => ({ ...r, hint: refusalHint(agent, r.skill, r.refusal, r.schemes, add) }));
}

/**
 * `drift` of the locked `agent` with a hint on each refusal that `a2a update` would not resolve
 * (the skill has no plan now, whatever the locked choices: no field of it drifts).
 */
export function hintDrift(agent: string, drift: readonly PlanDrift[]): PlanDrift[] {
  const moved = new Set(drift.filter((d) => !d.refusal).map((d) => d.skill));
  return drift.map((d) =>
    d.refusal && !moved.has(d.skill) ? { ...d, hint: refusalHint(agent, d.skill, d.refusal, d.schemes) } : d,
  );
}

/** `failure` of `agent` with the hint of each refusal and of each drift refusal ({@link hintRefusals}, {@link hintDrift}). */
export function hintFailure(agent: string, failure: SyncFailure, add?: AddRetry): SyncFailure {
  return {
    ...failure,
    ...(failure.refusals ? { refusals: hintRefusals(agent, failure.refusals, add) } : {}),
    ...(failure.drift ? { drift: hintDrift(agent, failure.drift) } : {}),
  };
}

/** Whether `a2a update <agent>` is the step for `drift`: some plan moved (a hinted refusal names its own step). */
export function updateResolves(drift: readonly PlanDrift[], signatureDrift: readonly unknown[] | undefined): boolean {
  return Boolean(signatureDrift?.length) || drift.length === 0 || drift.some((d) => !d.hint);
}
