/**
 * The runtime's platform authentication (`originAuth`): a fetch that adds each request's origin
 * placement (as the agent's lock entry records it) just before it is sent, the value read then.
 */

import type { OriginAuthenticator } from '../http/network-options.js';
import { redactError } from '../redact.js';

/**
 * `send` with the platform headers of `auth` added to every request to an origin it names (its
 * first hop: the enforcing fetch sends with `redirect: "manual"` and re-sends each hop itself).
 * A body that is neither a string nor bytes is signed as an unsigned payload (SigV4). An error
 * `send` throws is rethrown with the platform values redacted (`redactError`).
 */
export function originAuthFetch(send: typeof fetch, auth: OriginAuthenticator): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : input instanceof URL ? input.href : String(input));
    const headers = new Headers(init?.headers ?? request?.headers);
    const raw = init?.body;
    const body = typeof raw === 'string' ? raw : raw instanceof Uint8Array ? raw : undefined;
    if (raw != null && body === undefined && !headers.has('x-amz-content-sha256'))
      headers.set('x-amz-content-sha256', 'UNSIGNED-PAYLOAD');
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const added = await auth.headersFor({ url, method, headers: Object.fromEntries(headers), body });
    if (!added) return send(input, init);
    for (const [name, value] of Object.entries(added)) headers.set(name, value);
    try {
      return await send(input, { ...init, headers });
    } catch (error) {
      // The application's own fetch may quote the request it was given: the platform value is not kept.
      throw redactError(error, auth.sentSecrets());
    }
  };
}
