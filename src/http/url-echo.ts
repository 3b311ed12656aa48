/**
 * A URL that holds a credential its request carried: an origin or gateway that answers a request
 * made with `originAuth` by redirecting to `…?echo=<token>`. Such a URL is neither followed (the
 * token would go to wherever it points), written to the lockfile (`agents.<name>.resolved`) nor
 * printed. Pure: string tests over the redactor's spellings (`redact.ts`).
 */

import { InvalidInputError } from '../errors.js';
import { quotesSecret, redactSecrets } from '../redact.js';

/**
 * Whether `url` (as written in a `Location` header, or parsed) holds one of `secrets` (each of at
 * least 8 characters, as {@link quotesSecret} searches them) in any spelling the redactor knows:
 * raw, percent-encoded once or twice, form-encoded, base64 / base64url, hex, reversed, cut short.
 */
export function urlQuotesSecret(url: string, secrets: readonly string[]): boolean {
  return quotesSecret(url, secrets);
}

/** `shown` (a URL as printed) with every spelling of `secrets` as `***`. */
export function redactUrl(shown: string, secrets: readonly string[]): string {
  return secrets.length === 0 ? shown : redactSecrets(shown, secrets);
}

/** The refusal of a redirect (or final URL) that {@link urlQuotesSecret}: said without the URL's value. */
function urlQuotesCredential(subject: string): string {
  return `the ${subject} request was redirected to a URL that holds the credential it carried (the origin or a gateway echoed it): refused, so it is neither followed, written to the lockfile nor shown`;
}

/**
 * Refuse `candidate` (a Location as written, a redirect target or the URL that answered) when it
 * {@link urlQuotesSecret}: the error names `shown` (the URL asked for, which redirected there).
 * @throws {InvalidInputError} `card-invalid`, naming neither the value nor the URL holding it
 */
export function refuseEchoedUrl(
  candidate: string | undefined,
  shown: string,
  subject: string,
  secrets: readonly string[],
): void {
  if (candidate !== undefined && urlQuotesSecret(candidate, secrets))
    throw new InvalidInputError('card-invalid', shown, urlQuotesCredential(subject));
}
