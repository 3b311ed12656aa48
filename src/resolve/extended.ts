/**
 * Fetch a locked or new agent's authenticated extended card along a route (`lock/route.ts`), with
 * the credentials the manifest names read from the environment now, and read it as a card.
 */
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { assertShallow } from '../card/read.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { placeCredential } from '../credentials.js';
import { A2aLockError, InvalidInputError } from '../errors.js';
import { own } from '../json-path.js';
import type { ExtendedRoute } from '../lock/route.js';
import type { AgentEntry, AgentSettings } from '../manifest/schema.js';
import { requestOptions, type ResolveOptions } from './options.js';
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
export async function readExtended(route: ExtendedRoute, from: ExtendedCardSource, options: ResolveOptions, warnings: Warning[]): Promise<ReadCard | undefined> {
  const placements = Object.keys(route.requirement).map((scheme) => {
    const source = own(from.credentials, scheme);
    if (options.credentialsWithheld) {
      throw new A2aLockError('credential-unset', `the extended card needs the credential for scheme "${scheme}", which is not sent: ${options.credentialsWithheld}`, {
        hint: 'on a pull request run a2a verify (it sends a credential only along a route the base lockfile had) and a2a diff; run lock, update and outdated after merge',
        data: { variable: source?.env ?? null, scheme, withheld: true },
      });
    }
    const secret = source ? options.env?.[source.env] : undefined;
    if (!source || !secret) {
      const variable = source?.env ?? `(no credentials.${scheme} in the manifest)`;
      throw new A2aLockError('credential-unset', `the extended card needs ${variable} (credential for scheme "${scheme}"), which is not set`, {
        hint: source ? `set ${source.env} and rerun` : `add credentials.${scheme} to the agent in a2a.json`,
        data: { variable, scheme },
      });
    }
    const definition = own(from.schemes, scheme);
    if (!definition) throw new InvalidInputError('card-invalid', route.iface.url, `security requirement names scheme "${scheme}", which the card does not define`);
    return placeCredential(definition, secret, scheme);
  });
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
  const normalized = normalizeCard(result.card, { source, ...(from.baseUrl ? { baseUrl: from.baseUrl } : {}), ...(from.settings.rebaseInterfaces ? { rebaseInterfaces: true } : {}) });
  warnings.push(...normalized.warnings);
  const signature = await signatureOf(result.card, from.settings, options, warnings, [result.url, from.baseUrl]);
  return { raw: result.card, card: normalized.card, signature, url: result.url };
}
