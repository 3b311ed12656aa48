/**
 * The wire probe of a locked (or just negotiated) agent (issue 37): one GetTask for a task that
 * cannot exist per distinct locked interface (every plan's, every locked fallback's), each with
 * the credential its plan sends, bounded by the run's concurrency. The request is
 * `http/probe.ts`'s, the verdict `lock/probe.ts`'s.
 */
import type { NormalizedCard, Warning } from '../card/model.js';
import type { CredentialPlacement } from '../credentials.js';
import { A2aLockError, FetchError, InvalidInputError } from '../errors.js';
import { own } from '../json-path.js';
import { lockedNegotiationCard } from '../lock/offline.js';
import {
  interfaceKey,
  type ProbedInterface,
  type ProbeNotSent,
  type ProbeOutcome,
  type ProbeResult,
  probedInterfaces,
} from '../lock/probe.js';
import type { LockEntry } from '../lock/schema.js';
import type { AgentEntry, AgentSettings } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { mapSettled } from '../pool.js';
import { placementFor } from './extended.js';
import { DEFAULT_CONCURRENCY, type ResolveOptions, requestOptions } from './options.js';

/** What a probe of one agent needs: its plans, the card's schemes (to place credentials) and the manifest's credential sources. */
export interface ProbeSource {
  /** Skill id → plan: the interfaces probed are these plans' and their locked fallbacks'. */
  plans: Readonly<Record<string, Plan>>;
  /** The security schemes of the card the plans were negotiated from (the extended card's, when locked). */
  schemes: NormalizedCard['securitySchemes'];
  /** The manifest's credential sources for this agent (a2a.json `credentials`); default none. */
  credentials?: AgentEntry['credentials'];
  /** The agent's settings: `allowHttp` allows plain http (and plaintext gRPC) off loopback, as for its card. */
  settings?: Pick<AgentSettings, 'allowHttp'>;
}

/**
 * Probe every distinct interface of `source.plans` (see the module comment), at most
 * `options.concurrency` (default {@link DEFAULT_CONCURRENCY}) at a time. Each request carries the
 * credential of the first plan (in skill order) that names the interface, read from the
 * environment now; a credential withheld in this run (`options.credentialsWithheld`, the
 * pull-request gate) or unset is not sent, and the interface then most likely answers `auth-required`.
 * A credential that is set but cannot be obtained (its OAuth token endpoint refuses, fails, times
 * out or answers no token), or a request the run refuses before it leaves, sends no probe: the
 * interface is `not-probed`, said why in words of ours (never the token endpoint's body).
 * @returns interface key (`lock/probe.ts` interfaceKey) → outcome, or `not-probed`; an interface
 *   a probe cannot ask (a custom binding, no `@grpc/grpc-js`, see `probeInterface`) has no key.
 *   Never throws for what an agent or a token endpoint answers.
 */
export async function probeInterfaces(source: ProbeSource, options: ResolveOptions): Promise<Map<string, ProbeResult>> {
  const network = source.settings?.allowHttp ? { ...options, allowHttp: true } : options;
  const targets = probedInterfaces(source.plans).map((iface) => ({
    iface,
    requirement: requirementFor(iface, source.plans),
  }));
  const { probeInterface } = await import('../http/probe.js');
  // One placement per requirement: the interfaces of a plan share it (one OAuth token, not one each).
  const placed = new Map<string, Promise<CredentialPlacement[] | ProbeNotSent>>();
  const settled = await mapSettled(
    targets,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async ({ iface, requirement }): Promise<ProbeResult | undefined> => {
      const key = JSON.stringify(requirement);
      if (!placed.has(key)) placed.set(key, placements(requirement, source, network, iface.url));
      const credentials = await placed.get(key)!;
      if (!Array.isArray(credentials)) return credentials;
      return probeInterface({
        url: iface.url,
        protocolBinding: iface.protocolBinding,
        protocolVersion: iface.protocolVersion,
        ...(iface.tenant ? { tenant: iface.tenant } : {}),
        credentials,
        ...requestOptions(network),
      });
    },
  );
  const outcomes = new Map<string, ProbeResult>();
  settled.forEach((result, i) => {
    const key = interfaceKey(targets[i]!.iface);
    if (result.status === 'fulfilled') {
      if (result.value !== undefined) outcomes.set(key, result.value);
    } else {
      // A request the run refused before it left (a credential a proxy would carry in clear, a bad header value): never asked.
      outcomes.set(key, {
        kind: 'not-probed',
        reason: `the run refused the request before it left: ${inWords(result.reason, 'the interface')}`,
      });
    }
  });
  return outcomes;
}

/**
 * Probe a locked agent's interfaces (see {@link probeInterfaces}), placing credentials with the
 * schemes of the card its plans were negotiated from (the locked extended card's, when it has one).
 * @param agent the manifest's entry for the agent (its `card`, its `credentials`)
 */
export function probeLocked(
  entry: LockEntry,
  agent: Pick<AgentEntry, 'card' | 'credentials'>,
  settings: AgentSettings,
  options: ResolveOptions,
): Promise<Map<string, ProbeResult>> {
  const schemes = lockedNegotiationCard(entry, agent.card, settings).securitySchemes;
  return probeInterfaces({ plans: entry.plans, schemes, credentials: agent.credentials, settings }, options);
}

/**
 * The probe of `lock`, `add` and `update` (`options.probe`): probe the agent's new plans, say what
 * the outcomes mean in `warnings`, and return the entry's `probe` field. A `not-served` interface
 * is the warning `interface-not-served` naming it and what answered; an `auth-required` one the
 * warning `interface-auth-required` (alive, not proven to serve A2A); one whose probe was not sent
 * (its credential could not be obtained) the warning `interface-not-probed`, and nothing is
 * recorded for it (the caller keeps a kind recorded before: `lock/probe.ts` keptProbe).
 * @param card the card the plans were negotiated from (its schemes place the credentials)
 * @throws A2aLockError `interface-not-served` (exit 6) under `options.probe === 'strict'` when an
 *   interface is not served: the agent fails and nothing is written
 */
export async function probeAgent(
  plans: Readonly<Record<string, Plan>>,
  card: Pick<NormalizedCard, 'securitySchemes'>,
  agent: Pick<AgentEntry, 'credentials'>,
  settings: AgentSettings,
  options: ResolveOptions,
  warnings: Warning[],
): Promise<LockEntry['probe']> {
  const outcomes = await probeInterfaces(
    { plans, schemes: card.securitySchemes, credentials: agent.credentials, settings },
    options,
  );
  const notServed: string[] = [];
  for (const iface of probedInterfaces(plans)) {
    const outcome = outcomes.get(interfaceKey(iface));
    const named = `${iface.protocolBinding} ${iface.protocolVersion} at ${iface.url}${iface.tenant ? ` (tenant ${iface.tenant})` : ''}`;
    const answered = outcome?.kind !== 'not-probed' && outcome?.answered ? ` (answered: ${outcome.answered})` : '';
    if (outcome?.kind === 'not-served') {
      notServed.push(`${named}${answered}`);
      if (options.probe !== 'strict')
        warnings.push({
          code: 'interface-not-served',
          message: `${named} is not served: its probe (GetTask for a task that cannot exist) got no A2A answer${answered}; locked as not-served`,
        });
    } else if (outcome?.kind === 'auth-required') {
      warnings.push({
        code: 'interface-auth-required',
        message: `${named} answered its probe with an authentication refusal${answered}: alive, not proven to serve A2A; locked as auth-required`,
      });
    } else if (outcome?.kind === 'not-probed') {
      warnings.push({
        code: 'interface-not-probed',
        message: `${named} was not probed: its probe was not sent, as ${outcome.reason}; nothing is recorded for it (a kind recorded before is kept)`,
      });
    }
  }
  if (notServed.length > 0 && options.probe === 'strict') {
    throw new A2aLockError(
      'interface-not-served',
      `${notServed.length === 1 ? 'a locked interface is' : `${notServed.length} locked interfaces are`} not served: ${notServed.join('; ')}`,
      {
        hint: 'the card names an interface its server does not answer in that binding and version: ask the agent’s operator; without --strict it is locked with a warning',
        data: { interfaces: notServed },
      },
    );
  }
  return probeRecord(outcomes);
}

/**
 * The `probe` field of a lock entry from the outcomes: key → kind, keys sorted (deterministic
 * bytes); a probe that was not sent (`not-probed`) has no key; undefined when none is left.
 */
export function probeRecord(outcomes: ReadonlyMap<string, ProbeResult>): LockEntry['probe'] {
  const probed = [...outcomes].filter((entry): entry is [string, ProbeOutcome] => entry[1].kind !== 'not-probed');
  if (probed.length === 0) return undefined;
  return Object.fromEntries(probed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, o]) => [key, o.kind]));
}

/** The security requirement of the first plan that names `iface` (itself or as a locked fallback). */
function requirementFor(iface: ProbedInterface, plans: Readonly<Record<string, Plan>>): Record<string, string[]> {
  const key = interfaceKey(iface);
  for (const plan of Object.values(plans)) {
    if (interfaceKey(plan) === key || plan.fallbacks?.interfaces.some((f) => interfaceKey(f) === key))
      return plan.security;
  }
  return {};
}

/**
 * The placements of `requirement` that can be sent now; a withheld or unset credential is left out.
 * A credential that is set but cannot be obtained (its token endpoint failed, its scheme cannot be
 * placed) makes the probe `not-probed`, said why.
 */
async function placements(
  requirement: Record<string, string[]>,
  source: ProbeSource,
  options: ResolveOptions,
  url: string,
): Promise<CredentialPlacement[] | ProbeNotSent> {
  if (options.credentialsWithheld) return [];
  const out: CredentialPlacement[] = [];
  for (const [scheme, scopes] of Object.entries(requirement)) {
    if (!own(source.credentials ?? {}, scheme)) continue;
    try {
      out.push(
        await placementFor(
          scheme,
          scopes,
          { schemes: source.schemes, credentials: source.credentials ?? {} },
          options,
          url,
          'the probe',
        ),
      );
    } catch (error) {
      if (error instanceof A2aLockError && error.code === 'credential-unset') continue;
      return {
        kind: 'not-probed',
        reason: `the credential for scheme "${scheme}" could not be obtained: ${inWords(error, 'the token endpoint')}`,
      };
    }
  }
  return out;
}

/**
 * Why a credential could not be obtained or a request was not sent, in words of ours: a token
 * endpoint's failure by its kind and HTTP status only (its body may quote what it was sent, and its
 * OAuth `error` is its own text), any other error of ours by its message (which names no secret)
 * without the URL it starts with, bounded.
 */
function inWords(error: unknown, server: string): string {
  if (error instanceof FetchError) {
    const status = error.status;
    if (error.code === 'auth-refused')
      return `${server} refused the client credentials${status ? ` (HTTP ${status})` : ''}`;
    if (error.code === 'timeout') return `${server} did not answer in time`;
    if (status !== undefined && status >= 300 && status < 400)
      return `${server} answered a redirect (HTTP ${status}), not followed`;
    if (status !== undefined) return `${server} answered HTTP ${status}`;
    return error.cause !== undefined ? `${server} could not be reached` : `${server} answered no usable access token`;
  }
  if (error instanceof A2aLockError) {
    const source = error instanceof InvalidInputError ? error.source : undefined;
    const text =
      source !== undefined && error.message.startsWith(source)
        ? error.message.slice(source.length).replace(/^[^:]*: /, '')
        : error.message;
    return `${error.code}: ${text.length > 140 ? `${text.slice(0, 139)}…` : text}`;
  }
  return `an unexpected ${error instanceof Error ? error.name : 'error'}`;
}
