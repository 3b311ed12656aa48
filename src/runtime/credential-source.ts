/**
 * Where the runtime reads a locked plan's credential, scheme by scheme, in this order: the one
 * function of `loadLock({ credentials })`, else this agent's provider for the scheme
 * (`credentials[agent][scheme]`), else the manifest's source (`env`, or an OAuth client whose
 * access token is fetched). What it reads is placed as the locked card's scheme says
 * ({@link placeCredential}).
 */

import { credentialOriginOf } from '../card/host.js';
import type { SecurityScheme } from '../card/model.js';
import { type CredentialPlacement, placeCredential } from '../credentials.js';
import { A2aLockError, InvalidInputError, UsageError } from '../errors.js';
import type { AgentEntry } from '../manifest/schema.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';
import type { CredentialsOption } from './types.js';

/** A manifest credential source's OAuth client (`{"oauth": …}`). */
export type OAuthClientSource = Extract<AgentEntry['credentials'][string], { oauth: unknown }>['oauth'];

/** What {@link credentialPlacements} reads for one agent's plan. */
export interface CredentialSources {
  /** The locked agent's name and skill, for messages and providers. */
  agent: string;
  skill: string;
  /** The locked plan (its `security`: scheme → scopes) and the interface asked for when none is given. */
  plan: Plan;
  /** The locked card's security schemes. */
  schemes: Record<string, SecurityScheme>;
  /** The lockfile's path, for a scheme the card does not define. */
  lockfile: string;
  /** `loadLock`'s `credentials` option. */
  credentials: CredentialsOption | undefined;
  /** The manifest's credential sources for this agent (`{}`: none). */
  sources: AgentEntry['credentials'];
  /** The environment the manifest's `env` sources are read from. */
  env: NodeJS.ProcessEnv;
  /** An OAuth access token for `scheme` from the manifest's client (client-credentials grant). */
  oauthToken: (
    scheme: string,
    definition: SecurityScheme,
    oauth: OAuthClientSource,
    scopes: readonly string[],
  ) => Promise<string>;
}

/**
 * The credential placements reader of one agent's plan: called for each request (to `iface`), it
 * reads every scheme of the plan's security requirement now (a provider may rotate).
 * @throws A2aLockError `credential-unset` naming where the credential was looked for; UsageError a
 *   provider that returns no string; InvalidInputError `lockfile-invalid` for a scheme the card lacks
 */
export function credentialPlacements(
  s: CredentialSources,
): (iface?: FallbackInterface) => Promise<CredentialPlacement[]> {
  const { agent: name, skill, plan, credentials, sources, env } = s;
  const providers =
    typeof credentials === 'function'
      ? undefined
      : credentials && Object.hasOwn(credentials, name)
        ? credentials[name]!
        : {};
  // The runtime's placement rule (a value placed as it is in a header or cookie: printable ASCII, no leading or
  // trailing space), the Python runtime's too; messages name the agent and skill.
  const placing = { owner: `${name} (${skill})`, headerSafe: true };
  return async (iface: FallbackInterface = plan): Promise<CredentialPlacement[]> => {
    const out: CredentialPlacement[] = [];
    for (const [scheme, scopes] of Object.entries(plan.security)) {
      const definition = s.schemes[scheme];
      if (!definition)
        throw new InvalidInputError(
          'lockfile-invalid',
          s.lockfile,
          `agent "${name}" locks scheme "${scheme}", which its card does not define`,
        );
      // One function answers everything; else this agent's provider for the scheme; else the manifest.
      const provider =
        typeof credentials === 'function'
          ? credentials
          : providers && Object.hasOwn(providers, scheme)
            ? providers[scheme]
            : undefined;
      const source = !provider && Object.hasOwn(sources, scheme) ? sources[scheme]! : undefined;
      if (source && 'oauth' in source) {
        const token = await s.oauthToken(scheme, definition, source.oauth, scopes);
        out.push(placeCredential(definition, token, scheme, placing));
        continue;
      }
      const variable = source?.env;
      const secret: unknown = provider
        ? await provider({ agent: name, skill, scheme, scopes: [...scopes], origin: credentialOriginOf(iface.url) })
        : variable !== undefined
          ? env[variable]
          : undefined;
      if (secret !== undefined && typeof secret !== 'string') {
        throw new UsageError(
          `${name} (${skill}): the credentials provider for scheme "${scheme}" returned ${secret === null ? 'null' : Array.isArray(secret) ? 'an array' : `a ${typeof secret}`}, not a string`,
        );
      }
      if (secret === undefined || secret === '') throw unset(name, skill, scheme, credentials, provider, variable);
      out.push(placeCredential(definition, secret, scheme, placing));
    }
    return out;
  };
}

/** The `credential-unset` error: where the credential was looked for (the provider, or the variable), never a value. */
function unset(
  name: string,
  skill: string,
  scheme: string,
  credentials: CredentialsOption | undefined,
  provider: unknown,
  variable: string | undefined,
): A2aLockError {
  const by =
    typeof credentials === 'function'
      ? 'the credentials function of loadLock'
      : `loadLock's credentials["${name}"]["${scheme}"]`;
  const where = provider
    ? `${by} returned nothing`
    : variable !== undefined
      ? `${variable} is not set`
      : 'no credentials option or manifest source names it';
  const data = { agent: name, scheme, ...(provider ? { provider: by } : variable ? { variable } : {}) };
  return new A2aLockError('credential-unset', `${name} (${skill}): no credential for scheme "${scheme}" (${where})`, {
    data,
  });
}
