/**
 * Fetch a locked or new agent's authenticated extended card along a route (`lock/route.ts`), with
 * the credentials the manifest names read from the environment now (an OAuth client's access token
 * obtained from the scheme's client credentials `tokenUrl`), and read it as a card.
 */
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { assertShallow } from '../card/read.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { type CredentialPlacement, clientCredentialsTokenUrl, placeCredential } from '../credentials.js';
import { A2aLockError, InvalidInputError } from '../errors.js';
import { own } from '../json-path.js';
import type { ExtendedRoute } from '../lock/route.js';
import { type AgentEntry, type AgentSettings, sourceVariables } from '../manifest/schema.js';
import { type ResolveOptions, requestOptions } from './options.js';
import { signatureOf } from './signature.js';

/** A card as read in this run: raw JSON, the normalised model, its signature and where it came from. */
export interface ReadCard {
  raw: Record<string, unknown>;
  card: NormalizedCard;
  signature: SignatureRecord;
  url: string;
}

/** What {@link readExtended} needs besides the route. */
export interface ExtendedCardSource {
  /** The schemes to place the credentials with (the locked public card's, for a locked agent). */
  schemes: NormalizedCard['securitySchemes'];
  /** The manifest's credential sources for this agent. */
  credentials: AgentEntry['credentials'];
  settings: AgentSettings;
  /** The public card's URL: relative interface URLs of the extended card resolve against it. */
  baseUrl?: string | undefined;
}

/**
 * Fetch the authenticated extended card through `route` with the agent's credentials, read from
 * the environment variables the manifest names. Returns undefined (with a warning) when the agent
 * answers that it has none.
 * @throws A2aLockError `credential-unset` when a needed variable is unset; FetchError; InvalidInputError
 */
export async function readExtended(
  route: ExtendedRoute,
  from: ExtendedCardSource,
  options: ResolveOptions,
  warnings: Warning[],
): Promise<ReadCard | undefined> {
  const placements: CredentialPlacement[] = [];
  for (const [scheme, scopes] of Object.entries(route.requirement)) {
    placements.push(await placementFor(scheme, scopes, from, options, route.iface.url, 'the extended card'));
  }
  const { fetchExtendedCard } = await import('../http/extended-card.js');
  const result = await fetchExtendedCard({
    url: route.iface.url,
    protocolBinding: route.iface.protocolBinding,
    protocolVersion: route.iface.protocolVersion,
    ...(route.iface.tenant ? { tenant: route.iface.tenant } : {}),
    credentials: placements,
    ...requestOptions(options),
  });
  if (!result.card) {
    warnings.push(result.warning);
    return undefined;
  }
  const source = `${result.url} (extended card)`;
  assertShallow(result.card, source);
  const normalized = normalizeCard(result.card, {
    source,
    ...(from.baseUrl ? { baseUrl: from.baseUrl } : {}),
    ...(from.settings.rebaseInterfaces ? { rebaseInterfaces: true } : {}),
  });
  warnings.push(...normalized.warnings);
  const signature = await signatureOf(result.card, from.settings, options, warnings, [result.url, from.baseUrl]);
  return { raw: result.card, card: normalized.card, signature, url: result.url };
}

/**
 * The placement of the credential for `scheme` (with `scopes`, for an OAuth client's token) the
 * manifest names for this agent, read from the environment now; `subject` and `url` name what
 * needs it in errors.
 * @throws A2aLockError `credential-unset` when it is withheld in this run or a variable is unset;
 *   InvalidInputError `card-invalid` when the card does not define the scheme; FetchError from the token endpoint
 */
export async function placementFor(
  scheme: string,
  scopes: readonly string[],
  from: Pick<ExtendedCardSource, 'schemes' | 'credentials'>,
  options: ResolveOptions,
  url: string,
  subject: string,
): Promise<CredentialPlacement> {
  const source = own(from.credentials, scheme);
  const variables = source ? sourceVariables(source) : [];
  if (options.credentialsWithheld) {
    throw new A2aLockError(
      'credential-unset',
      `${subject} needs the credential for scheme "${scheme}", which is not sent: ${options.credentialsWithheld}`,
      {
        hint: 'on a pull request run a2a verify (it sends a credential only along a route the base lockfile had) and a2a diff; run lock, update and outdated after merge',
        data: { variable: variables.join(' ') || null, scheme, withheld: true },
      },
    );
  }
  const unset = source ? variables.find((v) => !options.env?.[v]) : `(no credentials.${scheme} in the manifest)`;
  if (unset !== undefined) {
    throw new A2aLockError(
      'credential-unset',
      `${subject} needs ${unset} (credential for scheme "${scheme}"), which is not set`,
      {
        hint: source ? `set ${unset} and rerun` : `add credentials.${scheme} to the agent in a2a.json`,
        data: { variable: unset, scheme },
      },
    );
  }
  const definition = own(from.schemes, scheme);
  if (!definition)
    throw new InvalidInputError(
      'card-invalid',
      url,
      `security requirement names scheme "${scheme}", which the card does not define`,
    );
  let secret: string;
  if (source && 'oauth' in source) {
    // The access token from the scheme's client credentials flow, at the card's own tokenUrl (the locked card's, for a locked agent).
    const tokenUrl = clientCredentialsTokenUrl(definition);
    if (tokenUrl === undefined)
      throw new InvalidInputError(
        'card-invalid',
        url,
        `a2a.json gives an OAuth client for scheme "${scheme}", which has no clientCredentials flow with a tokenUrl`,
      );
    const { ClientCredentialsTokens } = await import('../http/oauth-token.js');
    const { getDefaultDispatcher } = await import('../http/dispatcher.js');
    const network = requestOptions(options);
    const dispatcher = network.dispatcher ?? getDefaultDispatcher(network.concurrency);
    const tokens = new ClientCredentialsTokens(
      (url, init) => fetch(url, { ...init, dispatcher } as RequestInit),
      network.timeoutMs !== undefined ? { timeoutMs: network.timeoutMs } : {},
    );
    secret = await tokens.token({
      tokenUrl,
      clientId: options.env![source.oauth.clientId.env]!,
      clientSecret: options.env![source.oauth.clientSecret.env]!,
      scopes: [...scopes],
      ...(source.oauth.clientAuth ? { clientAuth: source.oauth.clientAuth } : {}),
    });
  } else {
    secret = options.env![variables[0]!]!;
  }
  return placeCredential(definition, secret, scheme);
}
