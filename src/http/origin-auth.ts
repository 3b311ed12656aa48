/**
 * Platform authentication per origin at the I/O edge: the {@link OriginAuthenticator} that turns
 * the manifest's (or the lockfile's) `originAuth` placements into request headers when a request
 * is sent, reading each value then (tokens expire): a bearer token, any header, or an AWS
 * Signature V4 computed with AWS's own signer (`@smithy/signature-v4`, an optional dependency
 * imported only when an origin asks for it).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { isLoopbackHost } from '../card/host.js';
import { describeOriginAuth, hasControlCharacter, isHeaderSafe } from '../credentials.js';
import { A2aLockError, UsageError } from '../errors.js';
import type { OriginAuth, OriginAuthMap } from '../manifest/schema.js';
import type { NetworkOptions, OriginAuthenticator } from './network-options.js';

/** AWS credentials for an `awsSigV4` placement (what a provider may return for one). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * A value for one origin's placement, asked for on every request: the token (or header value
 * without its prefix) for `bearer` and `header`; the AWS credentials for `awsSigV4`.
 */
export type OriginAuthProvider = () => string | AwsCredentials | Promise<string | AwsCredentials>;

/** Where the values come from. */
export interface OriginAuthSources {
  /** Read at request time for `{"env": NAME}` and the AWS variables. */
  env: NodeJS.ProcessEnv;
  /** Origin → provider; wins over the environment. */
  providers?: Readonly<Record<string, OriginAuthProvider>>;
  /** Set: no value is read or sent (a pull request run of `lock`); a request that would carry one fails `credential-unset` with this reason. */
  withheld?: string;
  /** Called with each origin a request was authenticated for (what the lockfile records). */
  onUse?: (origin: string) => void;
}

/** How many values per origin and header {@link OriginAuthenticator.sentSecrets} keeps (the newest; two requests' worth). */
const MAX_KEPT_VALUES = 4;

/**
 * The authenticator for `config` (origin → placement). A request gets headers only when its
 * origin is a key of `config` and it goes over https or to a loopback host.
 */
export function originAuthenticator(config: OriginAuthMap, sources: OriginAuthSources): OriginAuthenticator {
  // The last values per origin and header (a SigV4 signature differs on every request: bounded).
  const sent = new Map<string, string[]>();
  return {
    sentSecrets: () => [...sent.values()].flat(),
    placementFor: (origin) => (Object.hasOwn(config, origin) ? config[origin] : undefined),
    async headersFor(request) {
      const origin = request.url.origin;
      if (!Object.hasOwn(config, origin)) return undefined;
      // Never in cleartext off this machine, whatever the configuration says.
      if (
        request.url.protocol !== 'https:' &&
        !(request.url.protocol === 'http:' && isLoopbackHost(request.url.hostname))
      )
        return undefined;
      const auth = config[origin]!;
      if (sources.withheld !== undefined) {
        throw new A2aLockError(
          'credential-unset',
          `${origin} needs its originAuth (${describeOriginAuth(auth)}), which is not sent: ${sources.withheld}`,
          { data: { origin } },
        );
      }
      const provider =
        sources.providers && Object.hasOwn(sources.providers, origin) ? sources.providers[origin] : undefined;
      const headers = await placementHeaders(origin, auth, request, sources.env, provider);
      const taken = collidingHeaders(Object.keys(request.headers), headers);
      if (taken.length > 0) throw collisionError(origin, taken);
      for (const [name, value] of Object.entries(headers)) {
        // The value without its prefix (`Bearer `, a custom one) too: an echo may quote it alone.
        const bare = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s+(.{4,})$/.exec(value)?.[1];
        const key = `${origin} ${name.toLowerCase()}`;
        sent.set(
          key,
          [...new Set([value, ...(bare ? [bare] : []), ...(sent.get(key) ?? [])])].slice(0, MAX_KEPT_VALUES),
        );
      }
      sources.onUse?.(origin);
      return headers;
    },
  };
}

/**
 * The headers of `added` that `headers` already carries (case-insensitively): a platform placement
 * must not replace the agent's own credential (a `bearer` or SigV4 `Authorization` over the card's
 * bearer scheme). Empty when none collide.
 */
function collidingHeaders(headers: Iterable<string>, added: Readonly<Record<string, string>>): string[] {
  const present = new Set([...headers].map((h) => h.toLowerCase()));
  return Object.keys(added).filter((name) => present.has(name.toLowerCase()));
}

/** The error of a placement that would replace a header the request already carries. */
function collisionError(origin: string, names: readonly string[]): UsageError {
  return new UsageError(
    `originAuth for ${origin} would replace the request's own ${names.join(', ')} header (the agent's credential): nothing was sent`,
    {
      hint: 'place the platform credential in another header, e.g. {"header": {"name": "X-Serverless-Authorization", "env": "…", "prefix": "Bearer "}}',
    },
  );
}

/** What {@link withOriginAuth} reads from a run's options (the resolve shell's `ResolveOptions` has them). */
export interface OriginAuthRun extends NetworkOptions {
  env?: NodeJS.ProcessEnv;
  /** Origin → provider; wins over the environment. */
  originAuthProviders?: Readonly<Record<string, OriginAuthProvider>>;
  /** Set: no credential is sent in this run, and why. */
  credentialsWithheld?: string;
}

/**
 * `options` whose requests authenticate at the origins of `config` (its `platformAuth`), the
 * values read from the run's environment and providers, none sent when the run withholds
 * credentials; `options` as they are for no `config`. `onUse` hears each origin a request was
 * authenticated for (what the lockfile records).
 */
export function withOriginAuth<T extends OriginAuthRun>(
  options: T,
  config: OriginAuthMap | undefined,
  onUse?: (origin: string) => void,
): T {
  if (!config || Object.keys(config).length === 0) return options;
  const platformAuth = originAuthenticator(config, {
    env: options.env ?? {},
    ...(options.originAuthProviders ? { providers: options.originAuthProviders } : {}),
    ...(options.credentialsWithheld !== undefined ? { withheld: options.credentialsWithheld } : {}),
    ...(onUse ? { onUse } : {}),
  });
  return { ...options, platformAuth };
}

/** The headers of one placement for one request. */
async function placementHeaders(
  origin: string,
  auth: OriginAuth,
  request: Parameters<OriginAuthenticator['headersFor']>[0],
  env: NodeJS.ProcessEnv,
  provider: OriginAuthProvider | undefined,
): Promise<Record<string, string>> {
  if ('awsSigV4' in auth) {
    const given = provider ? await provider() : undefined;
    if (
      given !== undefined &&
      (typeof given !== 'object' ||
        given === null ||
        typeof given.accessKeyId !== 'string' ||
        typeof given.secretAccessKey !== 'string')
    ) {
      throw new UsageError(
        `the originAuth provider for ${origin} (awsSigV4) returned no AWS credentials ({accessKeyId, secretAccessKey, sessionToken?})`,
      );
    }
    const credentials = given ?? awsCredentialsFrom(env, origin);
    return signV4(auth.awsSigV4, credentials, request, origin);
  }
  const variable = 'bearer' in auth ? auth.bearer.env : auth.header.env;
  const given = provider ? await provider() : env[variable];
  if (given !== undefined && typeof given !== 'string')
    throw new UsageError(`the originAuth provider for ${origin} returned ${typeof given}, not a string`);
  if (given === undefined || given === '') {
    throw new A2aLockError(
      'credential-unset',
      `${origin} needs its originAuth (${describeOriginAuth(auth)}): ${provider ? 'its provider returned nothing' : `${variable} is not set`}`,
      {
        data: { origin, ...(provider ? {} : { variable }) },
      },
    );
  }
  const value = given.trim();
  // Checked here, not by a fetch implementation whose error would quote the value.
  if (hasControlCharacter(value))
    throw new UsageError(
      `the originAuth value for ${origin} (${provider ? 'its provider' : variable}) contains a line break or control character`,
    );
  if (!isHeaderSafe(value))
    throw new UsageError(
      `the originAuth value for ${origin} (${provider ? 'its provider' : variable}) has a character that is not printable ASCII, which a header cannot carry as it is`,
    );
  if ('bearer' in auth) return { Authorization: `Bearer ${value}` };
  // The prefix too (a lockfile is not checked against the manifest's schema at run time): a fetch would quote the whole value.
  if (hasControlCharacter(auth.header.prefix ?? ''))
    throw new UsageError(
      `the originAuth prefix for ${origin} (header ${auth.header.name}) contains a line break or control character`,
    );
  return { [auth.header.name]: `${auth.header.prefix ?? ''}${value}` };
}

/** AWS credentials from the standard variables. @throws A2aLockError `credential-unset` naming the unset one */
function awsCredentialsFrom(env: NodeJS.ProcessEnv, origin: string): AwsCredentials {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
    if (!env[name])
      throw new A2aLockError('credential-unset', `${origin} needs its originAuth (AWS SigV4): ${name} is not set`, {
        data: { origin, variable: name },
      });
  }
  return {
    accessKeyId: env.AWS_ACCESS_KEY_ID!,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY!,
    ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
  };
}

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape the signer takes (`Checksum`), on node:crypto. */
class Sha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
  reset(): void {
    throw new Error('not supported');
  }
}

/** Data the signer hashes, as node:crypto takes it. */
function bytes(data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof data === 'string') return data;
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

type SignerModule = typeof import('@smithy/signature-v4');
let signerModule: Promise<SignerModule> | undefined;

/**
 * `@smithy/signature-v4`, imported on first use.
 * @throws UsageError naming the package when it is not installed
 */
async function loadSigner(origin: string): Promise<SignerModule> {
  signerModule ??= import('@smithy/signature-v4');
  try {
    return await signerModule;
  } catch (error) {
    signerModule = undefined;
    throw new UsageError(
      `originAuth for ${origin} is awsSigV4, which signs with the optional package @smithy/signature-v4: it is not installed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      {
        hint: 'npm install @smithy/signature-v4',
      },
    );
  }
}

/**
 * The SigV4 headers of one request (`authorization`, `x-amz-date`, `x-amz-content-sha256`,
 * `x-amz-security-token` with a session token), over its method, path, query, body and the headers
 * it sends. A body that is not a string or bytes (a stream) is signed as `UNSIGNED-PAYLOAD`.
 */
async function signV4(
  scope: { region: string; service: string },
  credentials: AwsCredentials,
  request: Parameters<OriginAuthenticator['headersFor']>[0],
  origin: string,
): Promise<Record<string, string>> {
  const { SignatureV4 } = await loadSigner(origin);
  const signer = new SignatureV4({
    credentials,
    region: scope.region,
    service: scope.service,
    sha256: Sha256,
    applyChecksum: true,
    uriEscapePath: true,
  });
  const { url } = request;
  const headers: Record<string, string> = { host: url.host };
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const had = query[name];
    query[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers,
    body: request.body,
  });
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name === 'host' || Object.hasOwn(headers, name)) continue;
    out[name] = value;
  }
  return out;
}
